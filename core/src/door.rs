//! The core's door (docs/architecture.md#the-seam): the errors that cross into Python are the
//! core's own, and a panic of the core leaves it as one of them, never as pyo3's
//! `PanicException` (a BaseException that `except Exception` lets through), so no caller in the
//! package handles a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    otel_agentcov._core,
    TraceFormatError,
    PyValueError,
    "Bad input: a payload that is not what it claims to be; the message says where and what."
);
create_exception!(
    otel_agentcov._core,
    TooLarge,
    PyValueError,
    "The payload holds more spans or attributes than allowed; the message says which."
);
create_exception!(
    otel_agentcov._core,
    CoreFailed,
    TraceFormatError,
    "A panic of the core on an input: the input is refused whole, as bad input is."
);

/// What a panic says across the door. Not the panic's own message: Rust quotes the string it
/// failed to slice in it, which may be span content.
pub const CORE_FAILED: &str = "the compiled core failed on this input (a bug: please report it)";

/// `body` run behind the door: its panic becomes `CoreFailed`. Every function and method the
/// module exports runs its body through here (tests/test_seam.py reads the sources for it).
pub fn door<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| Err(CoreFailed::new_err(CORE_FAILED)))
}

/// A panic quoting `text`, behind the door: the test that a real panic of the core leaves it
/// as `CoreFailed`, worded without `text` (tests/test_seam.py). Not public API.
#[pyfunction]
fn _panic(text: &str) -> PyResult<()> {
    door(|| panic!("byte index 1 is not a char boundary; it is inside of `{text}`"))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // the default hook prints the panic's message, which may quote content, to the host's
    // stderr; the door words the panic itself (this hook is this library's alone)
    std::panic::set_hook(Box::new(|_| {}));
    m.add("TraceFormatError", py.get_type::<TraceFormatError>())?;
    m.add("TooLarge", py.get_type::<TooLarge>())?;
    m.add("CoreFailed", py.get_type::<CoreFailed>())?;
    m.add("CORE_FAILED", CORE_FAILED)?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    Ok(())
}
