"""The corpus engine: chunks of work run serially, in a process pool or on Dask; the parse cache; `samsa.evaluate`."""
