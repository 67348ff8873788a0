"""One call of one tool below the boundary: its path (``path.py``: validate the input,
run the executor, check the output), how a call crosses the boundary's layers
(``layers.py``), and the content it becomes: images, sizes and bounding."""
