"""What the model is shown: the frozen snapshot of one catalog (``snapshot.py``) and a
session's, layered on the Location's (``layered.py``): which tools are advertised, in
which order, natively or behind code mode (``definitions.py``), and in each provider
format (``listings.py``, computed on first need). Its calls go through the boundary's
layers (``host/boundary``) to their call path (``host/call``)."""
