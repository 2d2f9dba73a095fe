"""``python -m samsa`` is the ``samsa`` command."""

from samsa.cli import console

console()
