"""Float64 NumPy references written from docs/math.md, by plain sums (dense cosine and sine
matrices): section 1 (transforms) and section 2 (the electrostatic system). Independent of the
library: no FFT, no permutation."""

import numpy as np


def cos_matrix(K):
    """C_K(k, j) = cos(pi k (2j+1) / 2K), rows k, columns j."""
    k, j = np.meshgrid(np.arange(K), np.arange(K), indexing="ij")
    return np.cos(np.pi * k * (2 * j + 1) / (2 * K))


def sin_matrix(K):
    """S_K(k, j) = sin(pi k (2j+1) / 2K)."""
    k, j = np.meshgrid(np.arange(K), np.arange(K), indexing="ij")
    return np.sin(np.pi * k * (2 * j + 1) / (2 * K))


def c_weights(K):
    w = np.full(K, 2.0)
    w[0] = 1.0
    return w


# 1D along the last axis: each is x @ A.T with A[out, in].
def dct(x):
    return x @ cos_matrix(x.shape[-1]).T


def idct(X):
    K = X.shape[-1]
    return (X * c_weights(K)) @ cos_matrix(K)


def idxst(X):
    K = X.shape[-1]
    return (2 * X) @ sin_matrix(K)


def _along(axis_fn, x, axis):
    return np.moveaxis(axis_fn(np.moveaxis(x, axis, -1)), -1, axis)


def dct2(x):
    return _along(dct, dct(x), -2)


def idct2(X):
    return _along(idct, idct(X), -2)


def idxst_idct(X):
    """idxst along axis -2 (the first of the pair), idct along axis -1."""
    return _along(idxst, idct(X), -2)


def idct_idxst(X):
    return _along(idct, idxst(X), -2)


def dct3(x):
    return _along(dct, _along(dct, dct(x), -2), -3)


def idct3(X):
    return _along(idct, _along(idct, idct(X), -2), -3)


TRANSFORMS = {
    "dct": dct, "idct": idct, "idxst": idxst, "dct2": dct2, "idct2": idct2,
    "idct_idxst": idct_idxst, "idxst_idct": idxst_idct, "dct3": dct3, "idct3": idct3,
}


def overlaps(x0, x1, lo, b, K):
    """ox[i, m] = max(0, min(x1_i, lo + (m+1) b) - max(x0_i, lo + m b))."""
    edges = lo + b * np.arange(K + 1)
    return np.maximum(0.0, np.minimum(x1[:, None], edges[None, 1:]) - np.maximum(x0[:, None], edges[None, :-1]))


def electrostatics(region, bins, td, movable, fillers, fixed, x, y, macro_mask=None):
    """docs/math.md section 2. movable, fillers: (w, h); fixed: (w, h, x, y); x, y: lower-left
    corners of the movable cells, then the fillers; macro_mask: None or a bool per movable cell
    (DREAMPlace's movable macros: ratio td when td < 1). Returns a dict with rho, phi, ex, ey,
    fixed (F), energy, overflow (and its numerator overflow_area), max_density, gx, gy (movable,
    then fillers) and the cell area outside the region (movable_area_outside,
    filler_area_outside)."""
    xl, yl, xh, yh = region
    M, N = bins
    bx, by = (xh - xl) / M, (yh - yl) / N
    fw, fh, fx, fy = (np.asarray(a, dtype=np.float64) for a in fixed)
    F = overlaps(fx, fx + fw, xl, bx, M).T @ overlaps(fy, fy + fh, yl, by, N)
    F = np.minimum(F, bx * by) * td
    w = np.concatenate([movable[0], fillers[0]]).astype(np.float64)
    h = np.concatenate([movable[1], fillers[1]]).astype(np.float64)
    nm = len(movable[0])
    ws, hs = np.maximum(w, np.sqrt(2) * bx), np.maximum(h, np.sqrt(2) * by)
    xs, ys = x + (w - ws) / 2, y + (h - hs) / 2
    r = w * h / (ws * hs)
    macro = np.zeros(len(w), dtype=bool)
    if macro_mask is not None and td < 1:
        macro[:nm] = np.asarray(macro_mask, dtype=bool)
    r[macro] = td
    ox, oy = overlaps(xs, xs + ws, xl, bx, M), overlaps(ys, ys + hs, yl, by, N)
    Dm = F + (r[:nm, None] * ox[:nm]).T @ oy[:nm]
    D = F + (r[:, None] * ox).T @ oy
    rho = D / (bx * by)
    a = 4.0 / (M * N) * dct2(rho)
    wu = 2 * np.pi * np.arange(M)[:, None] / M
    wv = 2 * np.pi * np.arange(N)[None, :] / N * (bx / by)
    denom = wu ** 2 + wv ** 2
    denom[0, 0] = 1.0
    inv = 1.0 / denom
    inv[0, 0] = 0.0
    phi = idct2(a * inv)
    ex = idxst_idct(a * wu * inv / 2)
    ey = idct_idxst(a * wv * inv / 2)
    # Stretched footprints keep the cell's area, a macro's r w' h' below td = 1.
    outside = np.where(macro, r * ws * hs, w * h) - r * ox.sum(axis=1) * oy.sum(axis=1)
    gx = -r * np.einsum("im,mn,in->i", ox, ex, oy)
    gy = -r * np.einsum("im,mn,in->i", ox, ey, oy)
    return {
        "rho": rho, "phi": phi, "ex": ex, "ey": ey, "fixed": F,
        "energy": float(np.sum(phi * rho)),
        "overflow": float(np.sum(np.maximum(0.0, Dm - td * bx * by)) / np.sum(w[:nm] * h[:nm])),
        "overflow_area": float(np.sum(np.maximum(0.0, Dm - td * bx * by))),
        "max_density": float(Dm.max() / (bx * by)),
        "gx": gx, "gy": gy,
        "movable_area_outside": float(outside[:nm].sum()), "filler_area_outside": float(outside[nm:].sum()),
        "movable_area": float(np.sum(w[:nm] * h[:nm])), "filler_area": float(np.sum(w[nm:] * h[nm:])),
    }


def random_design(rng, num_movable=60, num_fillers=20, num_fixed=4, bins=(16, 12), region=(2.0, -1.0, 42.0, 29.0)):
    """A small random design: cells both smaller and larger than a bin, some sticking out of
    the region. Returns a dict of NumPy float64 arrays."""
    xl, yl, xh, yh = region
    M, N = bins
    bx, by = (xh - xl) / M, (yh - yl) / N

    def sizes(n, scale):
        return rng.uniform(0.3, scale, n) * bx, rng.uniform(0.3, scale, n) * by

    mw, mh = sizes(num_movable, 3.0)
    fw, fh = np.full(num_fillers, 1.1 * bx), np.full(num_fillers, 0.9 * by)
    xw, xh_ = sizes(num_fixed, 4.0)
    xx, xy = rng.uniform(xl - bx, xh - xw), rng.uniform(yl - by, yh - xh_)
    w, h = np.concatenate([mw, fw]), np.concatenate([mh, fh])
    x = rng.uniform(xl - 0.5 * w, xh - 0.5 * w)
    y = rng.uniform(yl - 0.5 * h, yh - 0.5 * h)
    return {
        "region": region, "bins": bins, "td": 0.8, "movable": (mw, mh), "fillers": (fw, fh),
        "fixed": (xw, xh_, xx, xy), "x": x, "y": y,
    }
