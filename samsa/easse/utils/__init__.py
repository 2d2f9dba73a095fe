"""EASSE's ``easse.utils`` package path: ``samsa.easse.utils.resources`` and ``.helpers`` are the modules of
:mod:`samsa.easse` under the names EASSE code imports (``.constants`` holds the names EASSE's command line checks)."""
