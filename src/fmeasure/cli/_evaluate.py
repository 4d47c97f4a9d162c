"""``fmeasure evaluate``: the four measures of predictions against true labels, with percentile
bootstrap intervals over instances."""

from __future__ import annotations

import contextlib

import numpy as np

from fmeasure.cli._common import CHUNK_VALUES, EXIT_OK, FLOAT_FORMAT, DataError, UsageError, chunk_rows
from fmeasure.cli._read import Table, blank_rows, show
from fmeasure.cli._write import check_output, open_output, progress
from fmeasure.metrics import MEASURE_TITLES, MEASURES, per_instance


def bootstrap_ci(scores, n_boot=1000, seed=0, confidence=0.95):
    """Mean of each column of ``scores`` (n, q) and its percentile bootstrap interval.

    Resamples are ``numpy.random.default_rng(seed).integers(0, n, size=(n_boot, n))``, drawn in
    batches of rows (same stream, bounded memory). Returns (mean (q,), low (q,), high (q,)).

    Examples
    --------
    >>> mean, lo, hi = bootstrap_ci(np.array([[1.0], [1.0], [1.0]]), n_boot=50)
    >>> mean.tolist(), lo.tolist(), hi.tolist()
    ([1.0], [1.0], [1.0])
    """
    scores = np.asarray(scores, dtype=np.float64)
    n, q = scores.shape
    rng = np.random.default_rng(seed)
    means = np.empty((n_boot, q))
    batch = max(1, CHUNK_VALUES // max(1, n))
    for start in range(0, n_boot, batch):
        stop = min(n_boot, start + batch)
        idx = rng.integers(0, n, size=(stop - start, n))
        for j in range(q):
            means[start:stop, j] = scores[idx, j].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha], axis=0)
    return scores.mean(axis=0), lo, hi


def pred_layout(table: Table, true: Table):
    """How to turn the prediction file's rows into (r, m) 0/1 arrays matching the true file."""
    names = [x for x in table.names if x != "expected_f"] if table.has_header else table.names
    if table.has_header and names == ["labels"]:
        return "labels", None
    if len(names) != len(true.names):
        raise DataError(f"{table.label}: {len(names)} label columns, but {true.label} has {len(true.names)}")
    default = [f"y{j + 1}" for j in range(len(names))]  # what predict names unnamed labels
    if table.has_header and true.has_header and default not in (names, true.names):
        if set(names) != set(true.names):
            miss = next(x for x in true.names if x not in names)
            raise DataError(f"{table.label}: no column {miss!r} of {true.label}")
        return "binary", [table.names.index(x) for x in true.names]
    return "binary", [table.names.index(x) for x in names]


def labels_to_binary(df, offset, table: Table, true: Table):
    """Rows of space-separated label indices (or names of the true file) -> (r, m) int8."""
    m = len(true.names)
    pos = {x: j for j, x in enumerate(true.names)}
    col = df[table.names.index("labels")].to_numpy(dtype=object)
    blank = blank_rows(df)
    H = np.zeros((len(col), m), np.int8)
    for i, text in enumerate(col):
        if blank[i]:  # a blank line between rows is not an empty prediction (that is ",<expected_f>")
            raise table.row_error(offset + i + 1) or table.empty_row_error(offset + i + 1)
        for tok in str(text).split():
            j = int(tok) if tok.isascii() and tok.isdigit() else pos.get(tok, -1)
            if not 0 <= j < m:
                raise DataError(
                    f"{table.label}: row {offset + i + 1}: label {show(tok)} is not one of the {m} labels of {true.label}"
                )
            H[i, j] = 1
    return H


def rebatch(pieces, size):
    """Blocks of exactly ``size`` rows (the last one shorter) from pieces (offset, rows) of any length."""
    buf, have = [], 0
    for _, a in pieces:
        buf.append(a)
        have += len(a)
        while have >= size:
            whole = np.concatenate(buf) if len(buf) > 1 else buf[0]
            yield whole[:size]
            buf, have = [whole[size:]], have - size
    if have:
        yield np.concatenate(buf) if len(buf) > 1 else buf[0]


def cmd_evaluate(args) -> int:
    if args.n_boot < 1:
        raise UsageError("--n-boot must be at least 1")
    if not 0.0 < args.confidence < 1.0:
        raise UsageError("--confidence must lie strictly between 0 and 1")
    check_output(args.output, [("--true", args.true), ("--pred", args.pred)])
    true = Table(args.true, args.header, delimiter=args.delimiter)
    pred = Table(args.pred, "auto", header_names=("expected_f",), header_hint="give the file a header row")
    kind, cols = pred_layout(pred, true)
    rows = chunk_rows(args, len(true.names))
    t_iter = rebatch(true.chunks(rows, "binary"), rows)
    if kind == "labels":
        p_iter = rebatch(((off, labels_to_binary(df, off, pred, true)) for off, df in pred.frames(rows, str)), rows)
    else:
        p_iter = rebatch(((off, a[:, cols]) for off, a in pred.chunks(rows, "binary", columns=cols)), rows)
    parts = []
    n_true = n_pred = 0
    with contextlib.ExitStack() as stack:
        # the output is opened first, so a path that cannot be written stops the command before the work
        stream = None if args.output is None else stack.enter_context(open_output(args.output))
        with progress("evaluate", true.n_rows, true) as bar:
            while True:
                Y = next(t_iter, None)
                H = next(p_iter, None)
                if Y is None or H is None or len(Y) != len(H):
                    # one file is shorter: count the rows of both for the message
                    n_true += (0 if Y is None else len(Y)) + sum(len(x) for x in t_iter)
                    n_pred += (0 if H is None else len(H)) + sum(len(x) for x in p_iter)
                    break
                v = per_instance(Y.astype(np.int8), H.astype(np.int8), jaccard_empty=args.jaccard_empty)
                parts.append(np.column_stack([v[k] for k in MEASURES]))
                n_true += len(Y)
                n_pred += len(H)
                bar.update(len(Y))
        if n_true != n_pred:
            raise DataError(f"{pred.label}: {n_pred} rows, but {true.label} has {n_true}")
        scores = np.concatenate(parts)
        mean, lo, hi = bootstrap_ci(scores, args.n_boot, args.seed, args.confidence)
        pct = f"{100 * args.confidence:g}%"
        width = max(len(MEASURE_TITLES[k]) for k in MEASURES)
        lines = [
            f"{len(scores)} instances, {args.n_boot} bootstrap resamples (seed {args.seed}), {pct} percentile intervals",
            f"{'measure':<{width}}  {'value':>8}  {pct + ' interval':>22}",
        ]
        for j, k in enumerate(MEASURES):
            lines.append(f"{MEASURE_TITLES[k]:<{width}}  {mean[j]:8.4f}  [{lo[j]:8.4f}, {hi[j]:8.4f}]")
        if stream is not None:
            import pandas as pd

            table = pd.DataFrame(
                {
                    "measure": list(MEASURES),
                    "value": mean,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n": len(scores),
                    "n_boot": args.n_boot,
                    "confidence": args.confidence,
                    "seed": args.seed,
                }
            )
            table.to_csv(stream, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    print("\n".join(lines))
    return EXIT_OK
