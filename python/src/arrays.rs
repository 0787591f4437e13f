//! Arrays from and to numpy. A CSR's row offsets and column indices come
//! as any of numpy's index widths (`int32`, `int64`, `uint32`, `uint64`)
//! and are copied once, in parallel, into the host library's widths
//! (64-bit offsets, 32-bit ids), each value checked on the way; results
//! go back as numpy arrays that take over the library's vectors, or, for
//! a GPU search's locked ones, borrow them and give them back to the
//! device as numpy frees them.

use bfs::gpu::{Labels, LockedLabels};
use numpy::ndarray::ArrayView1;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors::bad_input;

/// `array` (a one-dimensional, contiguous numpy array of integers) as
/// 64-bit values, each at least 0; `name` is the argument's, for errors.
pub fn offsets(array: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u64>> {
    integers(array, name, u64::MAX as i128)
}

/// `array` as vertex ids: each at least 0 and within 32 bits.
pub fn ids(array: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u32>> {
    integers(array, name, u32::MAX as i128)
}

/// Sources (or other vertices) given as an `int64` array, each checked to
/// be a vertex of a graph of `vertex_count`.
pub fn vertices(array: &PyReadonlyArray1<'_, i64>, vertex_count: u32) -> PyResult<Vec<u32>> {
    let values = array
        .as_slice()
        .map_err(|_| bad_input("sources must be a contiguous array of integers"))?;
    values
        .iter()
        .map(|&vertex| vertex_id(vertex, vertex_count))
        .collect()
}

/// `vertex` as an id of a graph of `vertex_count` vertices, or the
/// library's error for a source out of range.
pub fn vertex_id(vertex: i64, vertex_count: u32) -> PyResult<u32> {
    u32::try_from(vertex)
        .ok()
        .filter(|&id| id < vertex_count)
        .ok_or_else(|| {
            crate::errors::to_python(bfs::Error::SourceOutOfRange {
                vertex,
                vertex_count,
            })
        })
}

/// Distances or parents ([`bfs::UNREACHED`] where none) as numpy's
/// `int32`, `-1` where none: the same bits, in the same allocation.
pub fn signed<'py>(py: Python<'py>, values: Vec<u32>) -> Bound<'py, PyArray1<i32>> {
    PyArray1::from_vec(py, bytemuck::cast_vec::<u32, i32>(values))
}

/// Vertex ids or counts as numpy's `int64`.
pub fn wide<'py>(py: Python<'py>, values: Vec<u32>) -> Bound<'py, PyArray1<i64>> {
    PyArray1::from_vec(py, values.into_iter().map(i64::from).collect())
}

/// A search's levels or parents for numpy, as [`signed`]; where the GPU
/// copied them into locked memory, the array borrows it from a
/// [`Returned`], which gives it back to the device as numpy frees the
/// array, for a later search to copy its result into.
pub fn search_labels<'py>(py: Python<'py>, labels: Labels) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let mut labels = match labels {
        Labels::Vector(values) => return Ok(signed(py, values)),
        Labels::Locked(labels) => labels,
    };
    let (address, len) = (labels.as_mut_ptr().cast::<i32>(), labels.len());
    let owner = Bound::new(py, Returned { _labels: labels })?;
    // SAFETY: `len` values of `u32`, as `i32` (the same bits), in the
    // locked memory the owner holds, which stays where it is, and
    // untouched by the owner, until the owner is dropped.
    let view = unsafe { ArrayView1::from_shape_ptr(len, address.cast_const()) };
    // SAFETY: the owner is the array's base, so it lives as long as the
    // array, which alone reads and writes that memory meanwhile (numpy
    // arrays are writable; the pointer came from `as_mut_ptr`).
    Ok(unsafe { PyArray1::borrow_from_array(&view, owner.into_any()) })
}

/// A search's locked labels that a numpy array borrows, given back to
/// their device (by their own drop) when numpy frees the array.
#[pyclass(module = "bfs_gpu._native", frozen)]
pub struct Returned {
    _labels: LockedLabels,
}

/// The values of `array`, of whichever integer width it is, converted to
/// `U`, each from 0 to `most`.
fn integers<U>(array: &Bound<'_, PyAny>, name: &str, most: i128) -> PyResult<Vec<U>>
where
    U: TryFrom<i128> + Send + Default + Clone,
{
    let not_contiguous = |_| bad_input(format!("{name} must be a contiguous array"));
    let converted = if let Ok(array) = array.extract::<PyReadonlyArray1<'_, i32>>() {
        convert_slice(array.as_slice().map_err(not_contiguous)?, name, most)
    } else if let Ok(array) = array.extract::<PyReadonlyArray1<'_, i64>>() {
        convert_slice(array.as_slice().map_err(not_contiguous)?, name, most)
    } else if let Ok(array) = array.extract::<PyReadonlyArray1<'_, u32>>() {
        convert_slice(array.as_slice().map_err(not_contiguous)?, name, most)
    } else if let Ok(array) = array.extract::<PyReadonlyArray1<'_, u64>>() {
        convert_slice(array.as_slice().map_err(not_contiguous)?, name, most)
    } else {
        return Err(bad_input(format!(
            "{name} must be a one-dimensional numpy array of int32, int64, uint32 or uint64"
        )));
    };
    converted.map_err(bad_input)
}

/// Values a task of [`convert_slice`] converts.
const CONVERTED_CHUNK: usize = 1 << 16;

/// `values` converted to `U`, each from 0 to `most`; else which is not.
fn convert_slice<T, U>(values: &[T], name: &str, most: i128) -> Result<Vec<U>, String>
where
    T: Copy + Into<i128> + Sync,
    U: TryFrom<i128> + Send + Default + Clone,
{
    let within = |value: i128| (0..=most).contains(&value);
    // Written in place, a chunk a task: collecting into an `Option<Vec>`
    // would gather pieces and copy them again.
    let mut converted = vec![U::default(); values.len()];
    let all_within = converted
        .par_chunks_mut(CONVERTED_CHUNK)
        .zip(values.par_chunks(CONVERTED_CHUNK))
        .all(|(converted, values)| {
            converted.iter_mut().zip(values).all(|(to, &value)| {
                let value: i128 = value.into();
                match within(value).then(|| U::try_from(value).ok()).flatten() {
                    Some(value) => {
                        *to = value;
                        true
                    }
                    None => false,
                }
            })
        });
    all_within.then_some(converted).ok_or_else(|| {
        let at = values
            .iter()
            .position(|&value| !within(value.into()))
            .unwrap_or(0);
        let value: i128 = values[at].into();
        match value < 0 {
            true => format!("{name}[{at}] is {value}: indices must not be negative"),
            false => format!("{name}[{at}] is {value}: more than 32-bit vertex ids hold"),
        }
    })
}
