"""Figures: one style per method (readable in black and white), saved as PNG and PDF.

The pipeline's helper: it needs matplotlib, which the library does not install (``pip install
'fmeasure[pipeline]'`` does).
"""

from __future__ import annotations

try:
    import matplotlib
except ImportError as exc:
    raise ImportError(
        "fmeasure.figures needs matplotlib, which is not installed: pip install 'fmeasure[pipeline]'",
        name=exc.name,
    ) from exc

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .io import atomic_output  # noqa: E402

__all__ = ["METHOD_STYLE", "style", "save_figure", "plt"]

#: Line style per method: distinct markers and dash patterns, so figures survive grey-scale print.
METHOD_STYLE: dict[str, dict] = {
    "MM": dict(color="0.55", linestyle="--", marker="s"),
    "JM": dict(color="0.35", linestyle=":", marker="^"),
    "FM": dict(color="0.2", linestyle="-.", marker="o", markerfacecolor="white"),
    "GFM": dict(color="black", linestyle="-", marker="o"),
    "Lewis": dict(color="0.45", linestyle=(0, (3, 1, 1, 1, 1, 1)), marker="v"),
    "Thresholding": dict(color="0.3", linestyle=(0, (5, 2)), marker="D"),
    "BR": dict(color="0.55", linestyle="--", marker="s"),
    "LFP": dict(color="0.2", linestyle="-.", marker="o", markerfacecolor="white"),
    "EFP": dict(color="black", linestyle="-", marker="o"),
    "Bayes": dict(color="black", linestyle=(0, (1, 1)), marker=None, linewidth=1.2),
    "Exact": dict(color="black", linestyle=(0, (1, 1)), marker=None, linewidth=1.2),
}


def style(method: str, **overrides) -> dict:
    """Matplotlib keyword arguments for ``method`` (a neutral style for unknown names)."""
    out = dict(METHOD_STYLE.get(method, dict(color="0.4", linestyle="-", marker="x")))
    out.setdefault("label", method)
    out.update(overrides)
    return out


def save_figure(fig, png_path, pdf_path=None, dpi: int = 150) -> None:
    """Save ``fig`` atomically as PNG (and PDF if a path is given), then close it."""
    fig.tight_layout()
    with atomic_output(png_path) as tmp:
        fig.savefig(tmp, dpi=dpi, format="png")
    if pdf_path is not None:
        with atomic_output(pdf_path) as tmp:
            fig.savefig(tmp, format="pdf")
    plt.close(fig)
