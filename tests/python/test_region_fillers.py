"""efield.make_region_fillers (docs/math.md, Fillers per fence region) against the rule written
out in NumPy, and synthetic fence-region designs from Python."""
import numpy as np
import pytest

import efield


def _split(d):
    m, f = d.kind == efield.MOVABLE, d.kind == efield.FIXED
    ids = d.region_id[m] if d.region_id.size else None
    return (d.width[m], d.height[m]), ids, (d.width[f], d.height[f], d.x[f], d.y[f])


def _union_area(rects):
    """Area of a union of rectangles by coordinate compression (slow, obvious)."""
    if not rects:
        return 0.0
    xs = sorted({v for r in rects for v in (r[0], r[2])})
    ys = sorted({v for r in rects for v in (r[1], r[3])})
    area = 0.0
    for x0, x1 in zip(xs, xs[1:]):
        for y0, y1 in zip(ys, ys[1:]):
            if any(r[0] <= x0 and x1 <= r[2] and r[1] <= y0 and y1 <= r[3] for r in rects):
                area += (x1 - x0) * (y1 - y0)
    return area


def _numpy_rule(movable, ids, fences, fixed, region, td, row_height):
    """DREAMPlace 3.0's per-region rule as the reference writes it (percentile range, round)."""
    xl, yl, xh, yh = region
    K = len(fences)
    w, h = movable
    fw, fh, fx, fy = fixed
    clipped = [(max(x, xl), max(y, yl), min(x + a, xh), min(y + b, yh)) for a, b, x, y in zip(fw, fh, fx, fy)]
    clipped = [r for r in clipped if r[2] > r[0] and r[3] > r[1]]
    fence_area = [float(np.sum((f[:, 2] - f[:, 0]) * (f[:, 3] - f[:, 1]))) for f in fences]
    areas = fence_area + [(xh - xl) * (yh - yl) - _union_area(clipped) - sum(fence_area)]
    field = np.where(ids >= K, K, ids)
    out = []
    for k in range(K + 1):
        sel = field == k
        mov = float(np.sum(w[sel] * h[sel]))
        u = min(mov / areas[k], 1.0)
        tdk = max(0.35, min(1.0, u + 0.01) if td < u else td)
        p5, p95 = np.percentile(w[sel], [5, 95])
        width = float(np.mean(w[sel][(w[sel] >= p5) & (w[sel] <= p95)]))
        total = max(areas[k] * tdk - mov, 0.0)
        out.append(dict(width=width, count=round(total / (width * row_height)), target_density=tdk,
                        placeable_area=areas[k], total_area=total, num_movable=int(sel.sum())))
    return out


@pytest.mark.parametrize("num_fences", [1, 3, 5])
@pytest.mark.parametrize("td", [0.5, 0.9])
def test_matches_the_rule_in_numpy(num_fences, td):
    d = efield.generate_synthetic_design(3000, num_fixed_macros=15, num_io_pads=20, num_movable_macros=6,
                                         with_nets=False, seed=num_fences, num_fences=num_fences)
    movable, ids, fixed = _split(d)
    got = efield.make_region_fillers(movable, ids, d.fences, fixed, *d.region, td, d.row_height)
    want = _numpy_rule(movable, ids, d.fences, fixed, d.region, td, d.row_height)
    assert len(got) == num_fences + 1
    for g, w in zip(got, want):
        assert g["count"] == w["count"]
        assert g["num_movable"] == w["num_movable"]
        assert g["height"] == d.row_height
        for key in ("width", "target_density", "placeable_area", "total_area"):
            assert g[key] == pytest.approx(w[key], rel=1e-12, abs=1e-9), key


def test_no_fences_is_make_fillers():
    d = efield.generate_synthetic_design(2000, num_fixed_macros=10, num_io_pads=0, with_nets=False, seed=4)
    movable, _, fixed = _split(d)
    want = efield.make_fillers(movable, fixed, *d.region, 0.8, d.row_height)
    for ids in (None, np.zeros(2000, np.int64), np.full(2000, 2**31 - 1)):
        (got,) = efield.make_region_fillers(movable, ids, [], fixed, *d.region, 0.8, d.row_height)
        assert (got["width"], got["height"], got["count"], got["total_area"]) == want


def test_dreamplace_default_marker_and_given_td():
    d = efield.generate_synthetic_design(2000, num_fixed_macros=10, num_io_pads=0, with_nets=False, seed=2,
                                         num_fences=2)
    movable, ids, fixed = _split(d)
    base = efield.make_region_fillers(movable, ids, d.fences, fixed, *d.region, 0.7, d.row_height)
    dp_ids = np.where(ids == 2, 2**31 - 1, ids)
    assert efield.make_region_fillers(movable, dp_ids, d.fences, fixed, *d.region, 0.7, d.row_height) == base
    given = efield.make_region_fillers(movable, ids, d.fences, fixed, *d.region, 0.7, d.row_height,
                                       field_target_density=[0, 0.95, 0])
    assert given[1]["target_density"] == 0.95
    assert given[0] == base[0] and given[2] == base[2]


def test_refusals():
    d = efield.generate_synthetic_design(2000, num_fixed_macros=10, num_io_pads=0, with_nets=False, seed=2,
                                         num_fences=2)
    movable, ids, fixed = _split(d)
    call = lambda ids=ids, fences=d.fences, **kw: efield.make_region_fillers(  # noqa: E731
        movable, ids, fences, fixed, *d.region, 0.7, d.row_height, **kw)
    bad = ids.copy()
    bad[5] = 3
    with pytest.raises(efield.Error, match=r"region_id\[5\] = 3 is out of range"):
        call(ids=bad)
    with pytest.raises(efield.Error, match="fence 1 has no rectangles"):
        call(fences=[d.fences[0], np.zeros((0, 4))])
    with pytest.raises(efield.Error, match="fence 0 rectangle 0 .* overlaps fence 1 rectangle 0"):
        call(fences=[d.fences[0], d.fences[0]])
    xl, yl, xh, yh = d.region
    with pytest.raises(efield.Error, match="not inside the placement region"):
        call(fences=[d.fences[0], [[xl, yl, xh + 1, yl + 10]]])
    with pytest.raises(efield.Error, match="does not fit fence 1"):
        call(fences=[d.fences[0], [[xh - 2, yh - 2, xh, yh]]])
    with pytest.raises(efield.Error, match="fence 1 has no movable cells"):
        call(ids=np.where(ids == 1, 2, ids))
    with pytest.raises(ValueError, match=r"fences\[0\] must have shape"):
        call(fences=[[1.0, 2.0, 3.0, 4.0]])
    with pytest.raises(ValueError, match="region_id must be a one-dimensional integer array"):
        call(ids=ids.astype(np.float64))
    with pytest.raises(efield.Error, match="field_target_density has 2 entries for 3 fields"):
        call(field_target_density=[0.5, 0.5])


def test_synthetic_fence_design():
    kw = dict(num_fixed_macros=20, num_io_pads=10, num_movable_macros=8, with_nets=False, num_fences=4)
    a = efield.generate_synthetic_design(4000, seed=7, **kw)
    b = efield.generate_synthetic_design(4000, seed=7, **kw)
    assert len(a.fences) == 4 and [f.shape for f in a.fences] == [(1, 4), (2, 4), (1, 4), (2, 4)]
    np.testing.assert_array_equal(a.region_id, b.region_id)
    np.testing.assert_array_equal(a.x, b.x)
    for fa, fb in zip(a.fences, b.fences):
        np.testing.assert_array_equal(fa, fb)
    assert a.region_id.dtype == np.int32 and a.region_id.shape == (a.num_nodes,)
    counts = np.bincount(a.region_id, minlength=5)
    assert counts[:4].sum() == round(0.3 * (4000 - 8)) and counts[:4].min() >= 1
    xl, yl, xh, yh = a.region
    for k, f in enumerate(a.fences):
        assert np.all(f[:, 0] >= xl) and np.all(f[:, 2] <= xh) and np.all(f[:, 1] >= yl) and np.all(f[:, 3] <= yh)
        cells = np.flatnonzero(a.region_id == k)
        inside = np.zeros(len(cells), bool)
        for r in f:
            inside |= ((a.x[cells] >= r[0]) & (a.y[cells] >= r[1]) & (a.x[cells] + a.width[cells] <= r[2])
                       & (a.y[cells] + a.height[cells] <= r[3]))
        assert inside.all()
    plain = efield.generate_synthetic_design(4000, seed=7, num_fixed_macros=20, num_io_pads=10, num_movable_macros=8,
                                             with_nets=False)
    assert plain.fences == [] and plain.region_id.size == 0
    with pytest.raises(efield.Error, match="fenced_cell_fraction"):
        efield.generate_synthetic_design(100, num_fences=2, fenced_cell_fraction=1.5)
