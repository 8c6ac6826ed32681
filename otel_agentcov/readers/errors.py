"""The readers' one error type, the compiled core's own (`compiled.TraceFormatError`): bad bytes
the core refuses, a panic of the core (`CoreFailed`, a subclass) and a bad document a Python
reader refuses are caught alike."""

from __future__ import annotations

from ..compiled import TraceFormatError

__all__ = ["TraceFormatError"]
