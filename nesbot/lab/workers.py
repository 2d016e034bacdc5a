"""Where the lab's games run: on worker processes (map_indexed) or as Ray tasks (ray_map),
each call's result as it finishes with its index, so that progress moves whatever call is
slow and the results can be put back in order."""

import logging
import multiprocessing
import socket
from collections.abc import Callable, Iterator
from functools import partial

from nesbot.arguments import check_workers
from nesbot.errors import NesbotError


def _call_indexed[T, R](function: Callable[[T], R], indexed: tuple[int, T]) -> tuple[int, R]:
    index, item = indexed
    return index, function(item)


def map_indexed[T, R](
    function: Callable[[T], R], items: list[T], workers: int
) -> Iterator[tuple[int, R]]:
    """(index, function(item)) of every item, as each finishes (so progress moves whatever
    game is slow), on `workers` processes; `function` must be a module's own function."""
    indexed = partial(_call_indexed, function)
    if workers == 1 or len(items) <= 1:
        yield from map(indexed, enumerate(items))
        return
    # spawn, not fork: the parent may hold threads (video writer, Ray) that fork would copy.
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(workers, len(items))) as pool:
        yield from pool.imap_unordered(indexed, enumerate(items), chunksize=1)


def ray_map[T, R](function: Callable[[T], R], address: str, workers: int) -> Callable[..., list[R]]:
    """A runner that calls `function` on each item as a Ray task: `address` "local" starts
    a Ray instance on this machine with `workers` CPUs, anything else joins that cluster
    (nesbot must be installed on its nodes; `workers` is then unused). A Ray already running
    in this process is reused. run(items, on_result=None) calls on_result(index, result) as
    each call finishes and returns the results in the order of `items`."""
    check_workers(workers)
    try:
        import ray
    except ImportError:
        raise NesbotError("--ray needs Ray: pip install 'nesbot[ray]'") from None
    if not ray.is_initialized():
        _start_ray(ray, address, workers)
    remote = ray.remote(function)

    def run(items: list[T], on_result: Callable[[int, R], None] | None = None) -> list[R]:
        pending = [remote.remote(item) for item in items]
        index = {ref: i for i, ref in enumerate(pending)}
        results: dict[int, R] = {}
        try:
            while pending:
                # Whatever finished within half a second (at once when all have), so the
                # progress bar moves while the games run.
                done, pending = ray.wait(pending, num_returns=len(pending), timeout=0.5)
                for ref, result in zip(done, ray.get(done), strict=True):
                    results[index[ref]] = result
                    if on_result:
                        on_result(index[ref], result)
        except ray.exceptions.RayError as e:
            cause = getattr(e, "cause", None) or e  # a task's own exception
            reason = _first_line(f"{type(cause).__name__}: {cause}")
            raise NesbotError(f"a game failed on the Ray cluster: {reason}") from e
        return [results[i] for i in range(len(items))]

    return run


def _first_line(text: object) -> str:
    return (str(text).strip().splitlines() or [""])[0]


def _start_ray(ray, address: str, workers: int) -> None:
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    if address == "local":
        try:  # "local", not None: None would join a cluster that `ray start` left running
            ray.init(address="local", num_cpus=workers, include_dashboard=False, **quiet)
        except (OSError, ValueError, RuntimeError) as e:
            raise NesbotError(f"cannot start Ray on this machine: {_first_line(e)}") from None
        return
    _probe(address)
    try:
        ray.init(address=address, **quiet)
    except (OSError, ValueError, RuntimeError) as e:
        raise NesbotError(f"cannot join the Ray cluster at {address}: {_first_line(e)}") from None


def _probe(address: str, seconds: float = 10.0) -> None:
    """Fail at once when nothing answers at HOST:PORT: Ray itself would retry for many
    minutes, logging a warning every few seconds."""
    host, colon, port = address.split("://", 1)[-1].rpartition(":")
    if not (colon and host and port.isdigit()):
        return  # "auto" and malformed addresses: Ray's own checks of these are quick
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except OSError as e:
        reason = e.strerror or _first_line(e) or type(e).__name__
        raise NesbotError(f"cannot join the Ray cluster at {address}: {reason}") from None
