"""Argument checks shared by the package: every public function turns its array arguments into
C-contiguous arrays of exactly the dtype the compiled core expects, or raises a TypeError /
ValueError that names the argument, what was expected and what was found.

Why strict dtypes: rrswin is bit-exact, and a silent numpy cast (float32 -> float16, int64 -> uint8)
would round or wrap the caller's values before rrswin ever saw them. A numpy array or scalar must
therefore already have the expected dtype. Plain Python numbers and lists are converted (numpy's
own rules: Python floats round to nearest when float16 is expected), but integers out of range
and floats where integers are expected are refused.
"""

from __future__ import annotations

import operator

import numpy as np

# Hints for the mistakes one makes with bit patterns.
_HINTS = {
    ("float16", "uint16"): "; to pass f16 bit patterns use a.view(np.float16)",
    ("uint16", "float16"): "; to pass f16 values as bit patterns use a.view(np.uint16)",
    ("uint8", "int8"): "; to pass e4m3 codes held as int8 use a.view(np.uint8)",
    ("float32", "uint32"): "; to pass f32 bit patterns use a.view(np.float32)",
    ("float32", "float64"): "; round explicitly with a.astype(np.float32) if that is intended",
    ("float16", "float32"): "; round explicitly with a.astype(np.float16), or use rrswin.f32_to_f16",
    ("float16", "float64"): "; round explicitly with a.astype(np.float16), or use rrswin.f64_to_f16",
}


def contiguous(a) -> np.ndarray:
    """`a` as a C-contiguous array, copied only when needed. (np.ascontiguousarray would turn a 0-d
    array into shape (1,), losing numpy's scalar-in, scalar-out convention.)"""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy(order="C")


def array(x, name: str, dtype) -> np.ndarray:
    """`x` as a C-contiguous ndarray of exactly `dtype` (see the module docstring)."""
    dtype = np.dtype(dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype != dtype:
            hint = _HINTS.get((dtype.name, x.dtype.name), "")
            raise TypeError(f"{name}: expected dtype {dtype.name}, found dtype {x.dtype.name}{hint}")
        return contiguous(x)
    if isinstance(x, (str, bytes, dict, set)) or x is None:
        raise TypeError(f"{name}: expected a numpy array of dtype {dtype.name}, found {type(x).__name__}")
    try:
        probe = np.asarray(x)
    except (ValueError, TypeError) as e:  # ragged lists and the like
        raise TypeError(f"{name}: expected a numpy array of dtype {dtype.name}, found {type(x).__name__} ({e})") from None
    if probe.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected a numpy array of dtype {dtype.name}, found {type(x).__name__} "
                        f"converting to dtype {probe.dtype.name}")
    if dtype.kind in "iu":
        if probe.dtype.kind == "f" and probe.size:
            raise TypeError(f"{name}: expected integers (dtype {dtype.name}), found floating-point values")
        info = np.iinfo(dtype)
        if probe.size and (int(probe.min()) < info.min or int(probe.max()) > info.max):
            raise ValueError(f"{name}: expected values in [{info.min}, {info.max}] (dtype {dtype.name}), "
                             f"found values in [{int(probe.min())}, {int(probe.max())}]")
    return contiguous(probe.astype(dtype))


def shape_str(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def broadcast(arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The arrays broadcast against each other, each C-contiguous (copies where broadcasting)."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        found = ", ".join(f"{n} {shape_str(a.shape)}" for n, a in arrays.items())
        raise ValueError(f"shapes do not broadcast together: {found}") from None
    return [contiguous(np.broadcast_to(a, shape)) for a in arrays.values()]


def last_dims(a: np.ndarray, name: str, tail: tuple[int, ...], what: str) -> None:
    """Checks that `a` ends in the dimensions `tail`."""
    if a.ndim < len(tail) or a.shape[a.ndim - len(tail):] != tail:
        want = "(..., " + ", ".join(str(d) for d in tail) + ")"
        raise ValueError(f"{name}: expected shape {want} ({what}), found shape {shape_str(a.shape)}")


def choice(value, name: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a string, one of {', '.join(map(repr, allowed))}; found {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(map(repr, allowed))}, found {value!r}")
    return value


def integer(value, name: str, lo: int, hi: int | None = None) -> int:
    """A Python int (numpy integers accepted, bools and floats refused) in [lo, hi]."""
    if isinstance(value, bool):
        raise TypeError(f"{name}: expected an integer, found bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an integer, found {type(value).__name__}") from None
    if v < lo or (hi is not None and v > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise ValueError(f"{name}: expected an integer {rng}, found {v}")
    return v


def integer_pair(value, name: str, lo: int, hi: int | None = None) -> tuple[int, int]:
    try:
        x, y = value
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a pair (x, y) of integers, found {value!r}") from None
    return integer(x, f"{name}[0]", lo, hi), integer(y, f"{name}[1]", lo, hi)


def scalar_or_array(out: np.ndarray):
    """numpy's convention for elementwise functions: a 0-d result comes back as a numpy scalar."""
    return out[()] if out.ndim == 0 else out
