"""The HTTP boundary (Flask app factory, schemas) and the ``warlog`` command line."""
