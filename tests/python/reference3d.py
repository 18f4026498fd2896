"""Float64 NumPy reference of docs/math.md section 4 (the electrostatic system in three
dimensions), by plain sums over dense cosine and sine matrices, in the style of reference.py.
Independent of the library: no FFT, no permutation. Small sizes only."""

import numpy as np

from reference import _along, cos_matrix, dct, idct, idxst, overlaps


# 3D transforms (section 4.4): axes 0, 1, 2 are x, y, z.
def dct3d(x):
    return _along(dct, _along(dct, dct(x), -2), -3)


def _inverse3d(x_fn, y_fn, z_fn, X):
    return _along(x_fn, _along(y_fn, z_fn(X), -2), -3)


def idct3d(X):
    return _inverse3d(idct, idct, idct, X)


def idxst_idct_idct(X):
    """Sine along x (axis 0), cosine along y and z."""
    return _inverse3d(idxst, idct, idct, X)


def idct_idxst_idct(X):
    return _inverse3d(idct, idxst, idct, X)


def idct_idct_idxst(X):
    return _inverse3d(idct, idct, idxst, X)


def frequencies(bins, sizes):
    """Section 4.6: w_u, w_v, w_l broadcast to M x N x L, and inv with inv[0,0,0] = 0."""
    M, N, L = bins
    bx, by, bz = sizes
    wu = (2 * np.pi * np.arange(M) / M)[:, None, None]
    wv = (2 * np.pi * np.arange(N) / N * (bx / by))[None, :, None]
    wl = (2 * np.pi * np.arange(L) / L * (bx / bz))[None, None, :]
    denom = wu ** 2 + wv ** 2 + wl ** 2
    denom[0, 0, 0] = 1.0
    inv = 1.0 / denom
    inv[0, 0, 0] = 0.0
    return wu, wv, wl, inv


def laplacian_operator(phi, bins, sizes):
    """-bx^2 times the discrete Neumann Laplacian that the spectral solve inverts (section 4.7):
    the cosine basis diagonalises it with eigenvalue (w_u^2 + w_v^2 + w_l^2) / 4."""
    M, N, L = bins
    wu, wv, wl, _ = frequencies(bins, sizes)
    coeff = dct3d(phi) / (M * N * L)  # phi = idct3d(coeff)
    return idct3d(coeff * (wu ** 2 + wv ** 2 + wl ** 2) / 4)


def _check(region, bins, td, movable, fillers, fixed, position):
    xl, yl, zl, xh, yh, zh = region
    if not (xh > xl and yh > yl and zh > zl):
        raise ValueError(f"region {region}: every extent must be positive")
    if len(bins) != 3 or any(int(b) != b or b < 1 for b in bins):
        raise ValueError(f"bins {bins}: three whole numbers >= 1")
    if not 0 < td <= 1:
        raise ValueError(f"target density {td}: must be in (0, 1]")
    depth = zh - zl
    for name, cells in (("movable", movable), ("fillers", fillers), ("fixed", fixed)):
        lengths = {len(a) for a in cells}
        if len(lengths) != 1:
            raise ValueError(f"{name}: arrays of different lengths {sorted(lengths)}")
        for axis, size in zip("whd", cells[:3]):
            if np.any(np.asarray(size) <= 0):
                raise ValueError(f"{name}: a size {axis} that is zero or negative")
        if name != "fixed" and np.any(np.asarray(cells[2]) > depth):
            raise ValueError(f"{name}: a cell deeper than the region ({depth})")
    n = len(movable[0]) + len(fillers[0])
    for axis, p in zip("xyz", position):
        if len(p) != n:
            raise ValueError(f"position {axis}: {len(p)} values for {n} movable cells and fillers")


def electrostatics3d(region, bins, td, movable, fillers, fixed, x, y, z, macro_mask=None):
    """docs/math.md section 4. region: (xl, yl, zl, xh, yh, zh); bins: (M, N, L); movable,
    fillers: (w, h, d); fixed: (w, h, d, x, y, z); x, y, z: lower corners of the movable cells,
    then the fillers; macro_mask: None or a bool per movable cell. Returns a dict with rho, phi,
    ex, ey, ez, fixed (F), energy, overflow (and overflow_area), max_density, gx, gy, gz (the
    DreamPlace scale) and exact_gx, exact_gy, exact_gz (the Exact scale), movable then fillers."""
    _check(region, bins, td, movable, fillers, fixed, (x, y, z))
    xl, yl, zl, xh, yh, zh = region
    M, N, L = bins
    sizes = bx, by, bz = (xh - xl) / M, (yh - yl) / N, (zh - zl) / L
    vol = bx * by * bz
    fw, fh, fd, fx, fy, fz = (np.asarray(a, dtype=np.float64) for a in fixed)
    F = np.einsum("im,in,il->mnl", overlaps(fx, fx + fw, xl, bx, M), overlaps(fy, fy + fh, yl, by, N),
                  overlaps(fz, fz + fd, zl, bz, L))
    F = np.minimum(F, vol) * td
    w, h, d = (np.concatenate([a, b]).astype(np.float64) for a, b in zip(movable, fillers))
    x, y, z = (np.asarray(a, dtype=np.float64) for a in (x, y, z))
    nm = len(movable[0])
    # 4.1: at least sqrt(2) bins per side, capped by the region's extent along that axis.
    ws = np.maximum(w, min(np.sqrt(2) * bx, xh - xl))
    hs = np.maximum(h, min(np.sqrt(2) * by, yh - yl))
    ds = np.maximum(d, min(np.sqrt(2) * bz, zh - zl))
    xs, ys, zs = x + (w - ws) / 2, y + (h - hs) / 2, z + (d - ds) / 2
    r = w * h * d / (ws * hs * ds)
    macro = np.zeros(len(w), dtype=bool)
    if macro_mask is not None and td < 1:
        macro[:nm] = np.asarray(macro_mask, dtype=bool)
    r[macro] = td
    ox, oy, oz = (overlaps(s, s + e, lo, b, K) for s, e, lo, b, K in
                  ((xs, ws, xl, bx, M), (ys, hs, yl, by, N), (zs, ds, zl, bz, L)))
    Dm = F + np.einsum("i,im,in,il->mnl", r[:nm], ox[:nm], oy[:nm], oz[:nm])
    D = F + np.einsum("i,im,in,il->mnl", r, ox, oy, oz)
    rho = D / vol
    a = 4.0 / (M * N * L) * dct3d(rho)
    wu, wv, wl, inv = frequencies(bins, sizes)
    phi = idct3d(a * inv)
    ex = idxst_idct_idct(a * wu * inv / 2)
    ey = idct_idxst_idct(a * wv * inv / 2)
    ez = idct_idct_idxst(a * wl * inv / 2)
    g = np.full(M, 2.0)[:, None, None] * np.full(N, 2.0)[None, :, None] * np.full(L, 2.0)[None, None, :]
    g[0, :, :] /= 2
    g[:, 0, :] /= 2
    g[:, :, 0] /= 2
    energy = float(np.sum(phi * rho))
    energy_parseval = float(M * N * L / 4 * np.sum(g * a * a * inv))

    def field_gradient(field):
        return -r * np.einsum("im,in,il,mnl->i", ox, oy, oz, field)

    def edge_difference(lo, hi, b, K):
        """Per cell: +1 on the bin of its upper edge, -1 on the bin of its lower edge, each only
        when that edge lies inside the region (section 4.9)."""
        out = np.zeros((len(lo), K))
        cells = np.arange(len(lo))
        for edge, sign in ((hi, 1.0), (lo, -1.0)):
            k = np.floor(edge / b).astype(int)
            ok = (k >= 0) & (k < K)
            np.add.at(out, (cells[ok], k[ok]), sign)
        return out

    ex_x = edge_difference(xs - xl, xs + ws - xl, bx, M)
    ex_y = edge_difference(ys - yl, ys + hs - yl, by, N)
    ex_z = edge_difference(zs - zl, zs + ds - zl, bz, L)
    scale = 2 * r / vol
    outside = np.where(macro, r * ws * hs * ds, w * h * d) - r * ox.sum(1) * oy.sum(1) * oz.sum(1)
    over = np.maximum(0.0, Dm - td * vol)
    volume = np.sum(w[:nm] * h[:nm] * d[:nm])
    return {
        "rho": rho, "phi": phi, "ex": ex, "ey": ey, "ez": ez, "fixed": F,
        "energy": energy, "energy_parseval": energy_parseval,
        "overflow": float(over.sum() / volume), "overflow_area": float(over.sum()),
        "max_density": float(Dm.max() / vol),
        "gx": field_gradient(ex), "gy": field_gradient(ey), "gz": field_gradient(ez),
        "exact_gx": scale * np.einsum("im,in,il,mnl->i", ex_x, oy, oz, phi),
        "exact_gy": scale * np.einsum("im,in,il,mnl->i", ox, ex_y, oz, phi),
        "exact_gz": scale * np.einsum("im,in,il,mnl->i", ox, oy, ex_z, phi),
        "movable_volume_outside": float(outside[:nm].sum()),
        "filler_volume_outside": float(outside[nm:].sum()),
    }


def make_fillers3d(region, td, movable, fixed, height=None, depth=None):
    """Section 4.11: the 2D rule with volumes; depth defaults to the mean movable depth.
    Returns (w, h, d) of the fillers."""
    xl, yl, zl, xh, yh, zh = region
    mw, mh, md = (np.asarray(a, dtype=np.float64) for a in movable)
    n = len(mw)
    sorted_w = np.sort(mw)
    width = sorted_w[int(0.05 * n):int(0.95 * n)].mean()
    height = mh.mean() if height is None else height
    depth = md.mean() if depth is None else depth
    if depth <= 0 or depth > zh - zl:
        raise ValueError(f"filler depth {depth}: must be in (0, {zh - zl}]")
    fw, fh, fd, fx, fy, fz = (np.asarray(a, dtype=np.float64) for a in fixed)
    inside = ((np.minimum(fx + fw, xh) - np.maximum(fx, xl)).clip(0) * (np.minimum(fy + fh, yh) - np.maximum(fy, yl)).clip(0)
              * (np.minimum(fz + fd, zh) - np.maximum(fz, zl)).clip(0)).sum()
    total = max(td * ((xh - xl) * (yh - yl) * (zh - zl) - inside) - np.sum(mw * mh * md), 0.0)
    count = int(round(total / (width * height * depth)))
    return np.full(count, width), np.full(count, height), np.full(count, depth)


def random_design3d(rng, num_movable=40, num_fillers=10, num_fixed=3, bins=(7, 6, 3),
                    region=(2.0, -1.0, 0.5, 16.0, 11.0, 6.5), size_range=(0.3, 2.5)):
    """A small random 3D design: cells smaller and larger than a bin along each axis, some
    sticking out of the region in x and y, none as deep as the region (a cell that fills the depth
    sits on a kink of the energy in z, where central differences see neither side's slope)."""
    xl, yl, zl, xh, yh, zh = region
    M, N, L = bins
    bx, by, bz = (xh - xl) / M, (yh - yl) / N, (zh - zl) / L
    depth = zh - zl

    def sizes(n, lo, hi):
        return (rng.uniform(lo, hi, n) * bx, rng.uniform(lo, hi, n) * by,
                np.minimum(rng.uniform(lo, hi, n) * bz, 0.9 * depth))

    mw, mh, md = sizes(num_movable, *size_range)
    fw, fh, fd = np.full(num_fillers, 1.1 * bx), np.full(num_fillers, 0.9 * by), np.full(num_fillers, min(1.2 * bz, 0.9 * depth))
    xw, xh_, xd = sizes(num_fixed, 0.3, 3.0)
    xx, xy, xz = rng.uniform(xl - bx, xh - xw), rng.uniform(yl - by, yh - xh_), rng.uniform(zl, zh - xd)
    w, h, d = np.concatenate([mw, fw]), np.concatenate([mh, fh]), np.concatenate([md, fd])
    x = rng.uniform(xl - 0.5 * w, xh - 0.5 * w)
    y = rng.uniform(yl - 0.5 * h, yh - 0.5 * h)
    z = rng.uniform(zl, zh - d)
    return {
        "region": region, "bins": bins, "td": 0.8, "movable": (mw, mh, md), "fillers": (fw, fh, fd),
        "fixed": (xw, xh_, xd, xx, xy, xz), "x": x, "y": y, "z": z,
    }
