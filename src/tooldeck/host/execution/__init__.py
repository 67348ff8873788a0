"""What the model reads after a call: the immutable snapshot, input and output
validation, provider formats, content normalization, output bounding and the outcome of
a call at the session boundary."""
