"""EASSE's Python API, module for module: code written for EASSE ports by changing the import. More:
docs/architecture.md, "Module notes"."""
