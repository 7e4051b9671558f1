"""Many errors at once: a log of bodies classified or converted, row by row or as an Arrow table.

A month of logged upstream errors, a data lake of bodies, a replay of captured responses:
`rows()` reads an iterable of inputs and `table()` an Arrow column, and each row says what
`errconv.decode` and `errconv.convert` say of that input, field by field. An input that
does not decode is a row with `error` set, never an exception that ends the batch: row N
is always input N's (an empty or None input too), as `errconv convert --lines` writes an
error line for a line it cannot read and output line N is always input line N's.

`progress=` shows how far a long batch has got: a callback `progress(done, total)`, called
every 1,024 rows and once at the end, or True for a tqdm bar on stderr (tqdm: the
`progress` extra).

What makes a batch cheaper per row than a loop of `convert`: logs repeat themselves (the
same 429 body, thousands of times), so each distinct input is read once and its row
reused; what the target dialect loses is measured once per shape of fault (as
`errconv convert --lines` does, which runs on the same core). pyarrow is imported only by
`table()` (the `arrow` extra).

>>> from errconv import batch
>>> [r.next_step for r in batch.rows([b'{"type": "about:blank", "status": 429, "retry_after_seconds": 30}', b"nonsense"])]
['wait', None]
>>> next(batch.rows([b"upstream connect error"], status=503, to="problem")).body
b'{"status":503,"detail":"upstream connect error","next_step":"wait"}'

DuckDB, Polars, Dask and Spark call the same two functions: the README's "Bulk and data
engines" has a recipe for each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from ._pipeline.api import decode
from ._batch import Core, Reader
from ._extras import require
from ._progress import EVERY, Callback, callback
from ._model.errors import DecodeError, ErrconvError, LossError
from ._model.fault import Fault
from ._model.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    import pyarrow

__all__ = ["COLUMNS", "Row", "rows", "schema", "table"]


class Row(NamedTuple):
    """What errconv reads in one input (and writes of it, with `to=`).

    `dialect` is what the input was read as (`unrecognised` for a bare body no dialect
    recognises, read from the status it came with); `body` the input converted to the
    target dialect; `lost` the fields that target could not carry. An input that does not
    decode (or, with `strict=True`, would lose fields) has every field None but `error`,
    the message `decode` or `convert` raises for it.
    """

    dialect: str | None
    status: int | None
    grpc_code: int | None
    code: str | None
    next_step: str | None
    retry_after_seconds: int | None
    param: str | None
    body: bytes | None
    lost: tuple[str, ...] | None
    error: str | None


COLUMNS: tuple[str, ...] = Row._fields


def _reader(source: str | None, limits: Limits, now: float | Callable[[], float] | None) -> Reader:
    def read(data: bytes, status: int | None, where: str) -> tuple[Fault, str]:
        fault = decode(data, source, status=status, limits=limits, now=now)
        origin = fault.origin
        return fault, (origin.dialect if origin is not None and origin.dialect else "unrecognised")

    return read


def _as_bytes(item: Any) -> bytes:
    if type(item) is bytes:
        return item
    if isinstance(item, str):
        try:
            return item.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # as decode() says of the same text
            raise DecodeError("the input text holds a lone surrogate; give bytes or valid Unicode text") from None
    if isinstance(item, (bytearray, memoryview)):
        return bytes(item)
    raise ErrconvError(f"a batch input is bytes or text, not {type(item).__name__}")


_END = object()


def rows(
    inputs: Iterable[bytes | str | None],
    *,
    to: str | None = None,
    source: str | None = None,
    status: int | Iterable[int | None] | None = None,
    strict: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
    progress: Callback | bool | None = None,
) -> Iterator[Row]:
    """One `Row` per input, in order: what `decode(input, source, status=...)` reads and,
    with `to`, what `convert(input, to, ...)` writes.

    `status` is one HTTP status for every bare body, or an iterable of them (None where
    unknown) aligned with `inputs`. With `strict=True` an input whose conversion would
    lose fields is an error row, as `convert(..., strict=True)` raises LossError. A None
    input is an error row, and so is every input when `to` is a dialect errconv reads but
    does not write (as `convert` raises for each); a name that is no dialect raises.
    Row N is input N's, always: nothing is skipped, merged or reordered.

    `progress`: a callable `progress(done, total)` (total: `len(inputs)`, None when
    `inputs` has no length) called every 1,024 rows and when the inputs end, or True for a
    tqdm bar (the `progress` extra; ImportError naming it when tqdm is missing).
    """
    tick, close = callback(progress)  # now: a missing tqdm is said at the call, not at the first row
    made = _rows(inputs, to, source, status, strict, limits, now)
    if tick is None:
        return made
    total = len(inputs) if hasattr(inputs, "__len__") else None  # type: ignore[arg-type]
    return _counted(made, tick, close, total)


def _counted(made: Iterator[Row], tick: Callback, close: Callable[[], None], total: int | None) -> Iterator[Row]:
    done = 0
    try:
        for row in made:
            yield row
            done += 1
            if done % EVERY == 0:
                tick(done, total)
        tick(done, total)
    finally:
        close()


def _rows(
    inputs: Iterable[bytes | str | None],
    to: str | None,
    source: str | None,
    status: int | Iterable[int | None] | None,
    strict: bool,
    limits: Limits,
    now: float | Callable[[], float] | None,
) -> Iterator[Row]:
    core = Core(_reader(source, limits, now), to, limits)
    one_status = status is None or isinstance(status, int)
    statuses: Iterator[Any] = iter(()) if one_status else iter(status)  # type: ignore[arg-type]
    one = core.one
    for item in inputs:
        given: Any = status if one_status else next(statuses, _END)
        if given is _END:
            raise ErrconvError("status ran out before the inputs; give one status per input, or one for all")
        try:
            if item is None:
                raise ErrconvError("no input (null)")
            fault, dialect, body, lost = one(_as_bytes(item), given)
            if strict and lost:
                raise LossError(to or "", lost)
        except ErrconvError as exc:
            yield Row(None, None, None, None, None, None, None, None, None, str(exc))
            continue
        step = fault.next_step
        grpc_code = fault.grpc_code
        yield Row(
            dialect,
            fault.status,
            None if grpc_code is None else int(grpc_code),
            fault.code,
            None if step is None else step.value,
            fault.retry_after_seconds,
            fault.param,
            body,
            lost if to is not None else None,
            None,
        )
    if next(statuses, _END) is not _END:
        raise ErrconvError("status holds more values than there are inputs; give one status per input, or one for all")


def _pyarrow(what: str) -> Any:
    return require("pyarrow", package="pyarrow", extra="arrow", what=what)


def schema() -> pyarrow.Schema:
    """The Arrow schema of `table()`'s result (one column per `Row` field)."""
    pa = _pyarrow("errconv.batch.schema")
    return pa.schema(
        [
            ("dialect", pa.string()),
            ("status", pa.int32()),
            ("grpc_code", pa.int32()),
            ("code", pa.string()),
            ("next_step", pa.string()),
            ("retry_after_seconds", pa.int64()),
            ("param", pa.string()),
            ("body", pa.binary()),
            ("lost", pa.list_(pa.string())),
            ("error", pa.string()),
        ]
    )


def _arrow(pa: Any, column: Any) -> Any:
    """An Arrow array of `column`: an array or chunked array as it is, a Polars Series
    through its Arrow form, any other iterable built into one."""
    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks()
    if isinstance(column, pa.Array):
        return column
    to_arrow = getattr(column, "to_arrow", None)  # a Polars or pandas-on-Arrow Series
    if to_arrow is not None:
        return _arrow(pa, to_arrow())
    return pa.array(list(column))


def table(
    column: Any,
    *,
    to: str | None = None,
    source: str | None = None,
    status: Any = None,
    strict: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
    progress: Callback | bool | None = None,
) -> pyarrow.Table:
    """`rows()` over an Arrow column of bodies (string or binary; a chunked array, a Polars
    Series or any iterable too), as an Arrow table with the columns of `schema()`.

    `status` is one status for all, or a column of them aligned with `column`. The
    column is dictionary-encoded by Arrow, so each distinct (body, status) is read and
    built once, and the table is taken from the distinct rows. `progress` is `rows()`'s,
    counting the distinct inputs read (`total`: how many there are), the work it does.
    """
    pa = _pyarrow("errconv.batch.table")
    encoded = _arrow(pa, column).dictionary_encode()
    bodies = encoded.dictionary.to_pylist()
    indices = encoded.indices.to_pylist()
    given: list[Any]
    if status is None or isinstance(status, int):
        given = [status] * len(indices)
    else:
        given = _arrow(pa, status).to_pylist()
        if len(given) != len(indices):
            raise ErrconvError(f"status holds {len(given)} values for {len(indices)} bodies; give one per body, or one for all")
    distinct: dict[tuple[Any, Any], int] = {}
    order: list[int] = []
    inputs: list[Any] = []
    statuses: list[Any] = []
    for index, code in zip(indices, given):
        key = (index, code)
        at = distinct.get(key)
        if at is None:
            at = distinct[key] = len(inputs)
            inputs.append(None if index is None else bodies[index])
            statuses.append(code)
        order.append(at)
    columns: list[list[Any]] = [[] for _ in COLUMNS]
    appends = [c.append for c in columns]
    for row in rows(inputs, to=to, source=source, status=statuses, strict=strict, limits=limits, now=now, progress=progress):
        for append, value in zip(appends, row):
            append(value)
    kinds = schema()
    built = pa.Table.from_arrays([pa.array(values, type=field.type) for values, field in zip(columns, kinds)], schema=kinds)
    return built.take(pa.array(order, type=pa.int64()))


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
