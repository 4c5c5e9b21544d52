#!/usr/bin/env python3
"""Runs the enc5 layer on the demo frame and shows its RGBA16F surface.

The demo frame is what `rrswin run --layer enc5` runs without files: the default weight image
(synthetic, seed 1) and a synthetic input arena and texture at the real geometry ex = 40, ey = 23
(grid 5 x 3).

    python3 examples/demo_frame.py                 # a window, or demo_frame.png without a display
    python3 examples/demo_frame.py --out run.png   # always a file
    python3 examples/demo_frame.py --profile zluda --stress --seed 4

Needs the rrswin package (pip install . from the repository root, or PYTHONPATH=build/release/python
after a build with -DRRSWIN_BUILD_PYTHON=ON), numpy and matplotlib.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import rrswin


def rgb_image(rgba: np.ndarray) -> np.ndarray:
    """An RGBA float16 image as displayable RGB in [0, 1]: each channel scaled by its own largest
    magnitude (the surface's channels have very different ranges), non-finite values shown black."""
    rgb = rgba[..., :3].astype(np.float32)
    rgb[~np.isfinite(rgb)] = 0
    scale = np.abs(rgb).reshape(-1, 3).max(axis=0)
    scale[scale == 0] = 1
    return np.clip(np.abs(rgb) / scale, 0, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", metavar="FILE", help="save the figure to FILE (PNG, PDF, ...) instead of showing it")
    ap.add_argument("--profile", default="ada", choices=rrswin.PROFILES)
    ap.add_argument("--engine", default="golden", choices=rrswin.ENGINES)
    ap.add_argument("--seed", type=int, default=1, help="seed of the synthetic inputs and weights (default 1)")
    ap.add_argument("--stress", action="store_true", help="the stress variants of the synthetic assets")
    ap.add_argument("--threads", type=int, default=0, help="worker threads (default 0 = all)")
    ap.add_argument("--npz", metavar="FILE", help="also save arena and surface (numpy arrays) to FILE")
    ap.add_argument("--no-plot", action="store_true", help="print the summary only (no matplotlib needed)")
    args = ap.parse_args(argv)

    # The same assets `rrswin run --layer enc5 --seed N [--stress]` uses.
    frame = rrswin.synthetic_frame(rrswin.DEMO_EX, rrswin.DEMO_EY, args.seed, args.stress)
    weights = rrswin.default_weights() if (args.seed, args.stress) == (1, False) else \
        rrswin.synthetic_weights(args.seed, args.stress)
    t0 = time.perf_counter()
    result = rrswin.run(frame.input_arena, frame.texture, weights, profile=args.profile, engine=args.engine,
                      threads=args.threads, stats=True)
    seconds = time.perf_counter() - t0
    arena, surface = result
    print(f"rrswin enc5 demo frame: {rrswin.DEMO_EX}x{rrswin.DEMO_EY}, profile {args.profile}, engine {args.engine}: "
          f"{seconds:.2f} s")
    print(f"  output arena {arena.shape} {arena.dtype}, {np.count_nonzero(arena)} nonzero codes")
    for c, name in enumerate("RGBA"):
        ch = surface[..., c].astype(np.float32)
        print(f"  surface {name}: min {np.nanmin(ch):.6g}, max {np.nanmax(ch):.6g}, mean {np.nanmean(ch):.6g}")
    print("  branch counters:", ", ".join(f"{k} {v}" for k, v in result.stats.items()))

    if args.npz:
        np.savez(args.npz, arena=arena, surface=surface)
        print(f"wrote {args.npz}")
    if args.no_plot:
        return 0

    # Without a display, and without --out, the figure goes to a file rather than nowhere.
    out = args.out
    headless = sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if out is None and headless:
        out = "demo_frame.png"
    try:
        import matplotlib
    except ImportError:
        print("demo_frame.py: matplotlib is not installed (pip install matplotlib), or pass --no-plot",
              file=sys.stderr)
        return 1
    if out is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5), constrained_layout=True)
    axes[0, 0].imshow(rgb_image(frame.texture), interpolation="nearest")
    axes[0, 0].set_title("input texture (RGB, each channel scaled)")
    axes[0, 1].imshow(rgb_image(surface), interpolation="nearest")
    axes[0, 1].set_title("output surface (RGB, each channel scaled)")
    im = axes[1, 0].imshow(surface[..., 0].astype(np.float32), interpolation="nearest", cmap="viridis")
    axes[1, 0].set_title("surface channel R")
    fig.colorbar(im, ax=axes[1, 0], shrink=0.8)
    # The other output: each pixel's 160 e4m3 codes (5 planes x 32), decoded by the module's
    # evaluator; shown as their mean magnitude.
    values = rrswin.e4m3_to_f16(arena).astype(np.float32)  # (5, ey, ex, 32)
    mean_abs = np.abs(np.nan_to_num(values)).mean(axis=(0, 3))
    im = axes[1, 1].imshow(mean_abs, interpolation="nearest", cmap="magma")
    axes[1, 1].set_title("output arena: mean |e4m3 value| per pixel")
    fig.colorbar(im, ax=axes[1, 1], shrink=0.8)
    for ax in axes.flat:
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    fig.suptitle(f"rrswin enc5 demo frame ({rrswin.DEMO_EX}x{rrswin.DEMO_EY}, profile {args.profile}, seed {args.seed}"
                 f"{', stress' if args.stress else ''})")
    if out is not None:
        fig.savefig(out, dpi=100)
        print(f"wrote {out}")
    else:
        plt.show()
    return 0


if __name__ == "__main__":
    sys.exit(main())
