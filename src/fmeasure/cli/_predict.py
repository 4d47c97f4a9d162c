"""``fmeasure predict``: FM from a file of marginals, GFM from a file of joint label samples."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fmeasure.cli._common import EXIT_OK, DataError, UsageError, chunk_rows
from fmeasure.cli._files import check_exists
from fmeasure.cli._read import Table, format_suffix, load_sparse_samples
from fmeasure.cli._write import PredictionWriter, check_output, open_output, progress


def sample_source(args):
    """(names, k, n or None, iterator of (offset_instances, int8 (c, k, m)), Table or None) for --samples."""
    path = Path(args.samples)
    check_exists(path)
    fmt = format_suffix(path)
    k = args.samples_per_instance
    label = str(path)
    allow = (".csv", ".tsv", ".tab", ".npy", ".npz")
    if fmt == ".npz":
        if k is None:
            raise UsageError("--samples-per-instance is required with a .npz of samples (rows are n * k samples)")
        names, S = load_sparse_samples(path)
        if S.shape[0] % k:
            raise DataError(f"{label}: {S.shape[0]} rows is not a multiple of --samples-per-instance {k}")
        n, m = S.shape[0] // k, S.shape[1]
        per = chunk_rows(args, m, k)

        def gen():
            for start in range(0, n, per):
                stop = min(n, start + per)
                block = S[start * k : stop * k].toarray().astype(np.int8, copy=False)
                yield start, block.reshape(stop - start, k, m)

        return names, k, n, gen(), None

    table = Table(path, args.header, allow, args.delimiter, ndims=(2, 3))
    m = len(table.names)
    if table.array is not None and table.array.ndim == 3:
        n, kk = table.array.shape[:2]
        if k is not None and k != kk:
            raise UsageError(f"--samples-per-instance {k} contradicts {label}, of shape {table.array.shape}")
        if kk == 0:
            raise DataError(f"{label}: no samples (shape {table.array.shape})")
        per = chunk_rows(args, m, kk)

        def gen3():
            for start in range(0, n, per):
                a = np.asarray(table.array[start : start + per], dtype=np.float64)
                table.check(a.reshape(-1, m), start * kk, "binary")
                yield start, a.astype(np.int8)

        return table.names, kk, n, gen3(), table
    if k is None:
        raise UsageError(f"--samples-per-instance is required with a 2-D table of samples ({label})")
    per = chunk_rows(args, m, k)
    if table.n_rows is not None and table.n_rows % k:
        raise DataError(f"{label}: {table.n_rows} rows is not a multiple of --samples-per-instance {k}")

    def gen2():
        # pieces of rows are cut into whole instances; the rows of a partial one wait for the next piece
        rest = np.zeros((0, m), np.int8)
        done = 0  # instances yielded
        for _, a in table.chunks(per * k, "binary"):
            a = a.astype(np.int8)
            if len(rest):
                a = np.concatenate([rest, a])
            whole = len(a) // k * k
            rest = a[whole:]
            if whole:
                yield done, a[:whole].reshape(-1, k, m)
                done += whole // k
        if len(rest):
            raise DataError(f"{label}: {done * k + len(rest)} rows is not a multiple of --samples-per-instance {k}")

    n = None if table.n_rows is None else table.n_rows // k
    return table.names, k, n, gen2(), table


def cmd_predict(args) -> int:
    from fmeasure.inference import fm, gfm_from_samples

    check_output(args.output, [("--marginals", args.marginals), ("--samples", args.samples)])
    if args.marginals is not None:
        if args.samples_per_instance is not None:
            raise UsageError("--samples-per-instance goes with --samples, not --marginals")
        table = Table(args.marginals, args.header, delimiter=args.delimiter)
        names, n, per_item, source = table.names, table.n_rows, 1, table.label

        def batches():
            for _, a in table.chunks(chunk_rows(args, len(names)), "probability"):
                yield len(a), fm(a)

    else:
        names, per_item, n, gen, table = sample_source(args)
        source = args.samples

        def batches():
            for _, Y in gen:
                yield len(Y), gfm_from_samples(Y)

    with open_output(args.output) as stream:
        writer = PredictionWriter(stream, names, args.format, source)
        with progress("predict", n, table, per_item) as bar:
            for rows, (H, V) in batches():
                writer.write(H, V)
                bar.update(rows)
        writer.close()
    return EXIT_OK
