"""The version of every langacp distribution (core and plugins move together): change it with
``python scripts/set_version.py X.Y.Z``, which rewrites every place that repeats it."""

__version__ = "0.1.0"
