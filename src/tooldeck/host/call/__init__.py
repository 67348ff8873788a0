"""One call of one tool below the boundary: its path (validate the input, run the
executor, check the output), the content it becomes, images, sizes and bounding."""
