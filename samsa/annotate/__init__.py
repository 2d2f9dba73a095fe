"""``samsa annotate``: correct the parse's Scenes of the lines to annotate in the browser, saved as UCCA XML."""
