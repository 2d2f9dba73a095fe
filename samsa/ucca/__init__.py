"""UCCA: the graph model, its queries and validation, the XML formats, the evaluation measure, and the bridge
to the ``ucca`` package."""
