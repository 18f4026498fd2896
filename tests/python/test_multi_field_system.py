"""efield.MultiFieldSystem (python/efield/multi_field.py): fence-region fields of a synthetic
design against separately built efield.ElectrostaticSystem objects (bitwise) and against the
float64 NumPy reference; batches, weights, accumulation, dict fields, blockages and bad input.
NumPy and PyTorch arrays on the CPU; CUDA (PyTorch tensors) where a device is present."""
import numpy as np
import pytest

import efield
import reference
from conftest import requires_cuda, requires_torch, torch

GAP = 5  # entries between the movable cells and the fillers (DREAMPlace's terminals)


def _fence_case(num_fences=2, n=1200, seed=1):
    d = efield.generate_synthetic_design(n, num_fixed_macros=10, num_io_pads=10, with_nets=False, seed=seed,
                                         num_fences=num_fences)
    m, f = d.kind == efield.MOVABLE, d.kind == efield.FIXED
    movable = (d.width[m], d.height[m])
    fixed = (d.width[f], d.height[f], d.x[f], d.y[f])
    ids = d.region_id[m]
    fillers = efield.make_region_fillers(movable, ids, d.fences, fixed, *d.region, 0.8, d.row_height)
    fields, entries = efield.make_fence_fields(movable, ids, d.fences, fixed, *d.region, fillers,
                                               filler_offset=len(movable[0]) + GAP)
    rng = np.random.default_rng(seed)
    xl, yl, xh, yh = d.region
    x = np.concatenate([d.x[m], rng.uniform(xl, xh - 10, entries - len(movable[0]))])
    y = np.concatenate([d.y[m], rng.uniform(yl, yh - 10, entries - len(movable[0]))])
    return dict(design=d, movable=movable, fixed=fixed, ids=ids, fillers=fillers, fields=fields, entries=entries,
                x=x, y=y, region=d.region)


def _system(case, dtype="float64", device="cpu", bins=32, **kw):
    """The per-field pipeline unless the test names one: every field bitwise its own system's."""
    kw.setdefault("pipeline", "per_field")
    xl, yl, xh, yh = case["region"]
    return efield.MultiFieldSystem(case["fields"], xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=bins, num_bins_y=bins,
                                   num_entries=case["entries"], dtype=dtype, device=device, **kw)


def _separate(case, k, dtype, bins=32, device="cpu"):
    f = case["fields"][k]
    xl, yl, xh, yh = case["region"]
    es = efield.ElectrostaticSystem((f.movable_widths, f.movable_heights), (f.filler_widths, f.filler_heights),
                                    (f.fixed_widths, f.fixed_heights, f.fixed_x, f.fixed_y), xl=xl, yl=yl, xh=xh,
                                    yh=yh, num_bins_x=bins, num_bins_y=bins, target_density=f.target_density,
                                    dtype=dtype, device=device)
    idx = np.concatenate([f.movable_index, f.filler_index])
    return es, idx


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fence_fields_equal_separate_systems(dtype):
    case = _fence_case(num_fences=3)
    mf = _system(case, dtype)
    assert mf.num_fields == 4
    x, y = case["x"].astype(dtype), case["y"].astype(dtype)
    rs = mf.evaluate(x, y)
    gx = rs[0].grad_x
    for k in range(4):
        es, idx = _separate(case, k, dtype)
        r = es.evaluate(x[idx].copy(), y[idx].copy())
        assert rs[k].energy == r.energy and rs[k].overflow == r.overflow and rs[k].max_density == r.max_density
        np.testing.assert_array_equal(gx[idx], r.grad_x)
        np.testing.assert_array_equal(rs[k].grad_y[idx], r.grad_y)
        np.testing.assert_array_equal(mf.field(k).density_map(), es.density_map())
    n = len(case["movable"][0])
    np.testing.assert_array_equal(gx[n:n + GAP], 0)  # untouched (zero-filled here)


def test_each_field_matches_the_numpy_reference():
    case = _fence_case(num_fences=2, n=500, seed=3)
    mf = _system(case, "float64", bins=16)
    rs = mf.evaluate(case["x"], case["y"])
    for k, f in enumerate(case["fields"]):
        idx = np.concatenate([f.movable_index, f.filler_index])
        ref = reference.electrostatics(case["region"], (16, 16), f.target_density,
                                       (f.movable_widths, f.movable_heights), (f.filler_widths, f.filler_heights),
                                       (f.fixed_widths, f.fixed_heights, f.fixed_x, f.fixed_y), case["x"][idx],
                                       case["y"][idx])
        assert rs[k].energy == pytest.approx(ref["energy"], rel=1e-9)
        assert rs[k].overflow == pytest.approx(ref["overflow"], rel=1e-9)
        np.testing.assert_allclose(mf.field(k).density_map(), ref["rho"], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(rs[k].grad_x[idx], ref["gx"], rtol=1e-7, atol=1e-9 * np.abs(ref["gx"]).max())


def test_weights_accumulate_and_zeroed_entries():
    case = _fence_case()
    mf = _system(case, zero_other_entries=True)
    x, y = case["x"], case["y"]
    plain = mf.evaluate(x, y)[0]
    gx, gy = np.full_like(x, 3.0), np.full_like(y, 3.0)
    w = [2.0, 0.5, -4.0]
    mf.evaluate(x, y, gx, gy, weights=np.array(w), accumulate=True)
    n = len(case["movable"][0])
    for k, f in enumerate(case["fields"]):
        idx = np.concatenate([f.movable_index, f.filler_index])
        np.testing.assert_array_equal(gx[idx], 3.0 + w[k] * plain.grad_x[idx])
    np.testing.assert_array_equal(gx[n:n + GAP], 3.0)  # accumulating: unowned entries untouched
    mf.evaluate(x, y, gx, gy)
    np.testing.assert_array_equal(gx[n:n + GAP], 0.0)
    with pytest.raises(efield.Error, match="weights"):
        mf.evaluate(x, y, weights=[1.0, 2.0])


def test_batch_and_dict_fields():
    rng = np.random.default_rng(7)
    n, nf, count = 200, 80, 4
    mw, mh = rng.uniform(1, 10, n), rng.uniform(1, 10, n)
    fw, fh = np.full(nf, 4.0), np.full(nf, 4.0)
    fixed = ([20.0], [30.0], [50.0], [40.0])
    fields = efield.make_batch_fields(count, (mw, mh), (fw, fh), fixed, 0.9)
    x, y = rng.uniform(0, 190, count * (n + nf)), rng.uniform(0, 150, count * (n + nf))
    kw = dict(xl=0, yl=0, xh=200, yh=160, num_bins_x=32, num_bins_y=16, num_entries=count * (n + nf), dtype="float64")
    rs = efield.MultiFieldSystem(fields, **kw).evaluate(x, y)
    as_dicts = [dict(movable_index=np.arange(n) + k * (n + nf), movable_widths=mw, movable_heights=mh,
                     filler_index=np.arange(nf) + k * (n + nf) + n, filler_widths=fw, filler_heights=fh,
                     fixed_widths=fixed[0], fixed_heights=fixed[1], fixed_x=fixed[2], fixed_y=fixed[3],
                     target_density=0.9) for k in range(count)]
    rd = efield.MultiFieldSystem(as_dicts, **kw).evaluate(x, y)
    for k in range(count):
        es = efield.ElectrostaticSystem((mw, mh), (fw, fh), fixed, xl=0, yl=0, xh=200, yh=160, num_bins_x=32,
                                        num_bins_y=16, target_density=0.9, dtype="float64")
        s = slice(k * (n + nf), (k + 1) * (n + nf))
        r = es.evaluate(x[s].copy(), y[s].copy())
        assert rs[k].energy == r.energy == rd[k].energy
        np.testing.assert_array_equal(rs[k].grad_x[s], r.grad_x)
        np.testing.assert_array_equal(rd[k].grad_y[s], r.grad_y)


def test_blockages_cover_region_minus_fence_minus_fixed():
    case = _fence_case(num_fences=4)
    d = case["design"]
    xl, yl, xh, yh = case["region"]
    for k in range(4):
        b = efield.fence_blockages(k, d.fences, case["fixed"], xl, yl, xh, yh)
        assert b.shape[1] == 4 and len(b) > 0
        assert (b[:, 0] >= xl).all() and (b[:, 2] <= xh).all() and (b[:, 1] >= yl).all() and (b[:, 3] <= yh).all()
        f = case["fields"][k]
        assert f.num_fixed == len(case["fixed"][0]) + len(b)
    assert len(efield.fence_blockages(4, d.fences, case["fixed"], xl, yl, xh, yh)) == sum(len(f) for f in d.fences)


def test_bad_input():
    case = _fence_case()
    mf = _system(case)
    before = mf.evaluate(case["x"], case["y"])[1].energy
    fields = list(case["fields"])
    fields.append(fields[0])
    with pytest.raises(efield.Error, match="already owns"):
        _system(dict(case, fields=fields))
    with pytest.raises(efield.Error, match="no fields"):
        _system(dict(case, fields=[]))
    with pytest.raises(ValueError, match="unknown keys"):
        _system(dict(case, fields=[dict(movable_index=[0], movable_widths=[1], movable_heights=[1], color=3)]))
    ids = case["ids"].copy()
    ids[0] = 99
    with pytest.raises(efield.Error, match="region_id"):
        efield.make_fence_fields(case["movable"], ids, case["design"].fences, case["fixed"], *case["region"],
                                 case["fillers"])
    with pytest.raises(efield.Error, match="filler specs"):
        efield.make_fence_fields(case["movable"], case["ids"], case["design"].fences, case["fixed"], *case["region"],
                                 case["fillers"][:-1])
    with pytest.raises(efield.Error, match="count"):
        efield.make_batch_fields(0, case["movable"])
    with pytest.raises(TypeError, match="dtype"):
        mf.evaluate(case["x"].astype(np.float32), case["y"].astype(np.float32))
    x = case["x"].copy()
    x[3] = np.nan
    with pytest.raises(efield.Error, match="non-finite"):
        mf.evaluate(x, case["y"])
    with pytest.raises(ValueError, match="entries"):
        mf.evaluate(case["x"][:10], case["y"][:10])
    assert mf.evaluate(case["x"], case["y"])[1].energy == before


@requires_torch
def test_torch_cpu_tensors():
    case = _fence_case()
    mf = _system(case, "float32")
    x, y = torch.tensor(case["x"], dtype=torch.float32), torch.tensor(case["y"], dtype=torch.float32)
    rs = mf.evaluate(x, y, weights=torch.tensor([1.0, 2.0, 3.0]))
    assert isinstance(rs[0].grad_x, torch.Tensor)
    ref = mf.evaluate(case["x"].astype(np.float32), case["y"].astype(np.float32), weights=[1.0, 2.0, 3.0])
    np.testing.assert_array_equal(rs[0].grad_x.numpy(), ref[0].grad_x)
    assert [r.energy for r in rs] == [r.energy for r in ref]


@requires_cuda
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_fields_equal_separate_async_systems(dtype):
    case = _fence_case(num_fences=4)
    mf = _system(case, dtype, device="cuda")
    tdt = getattr(torch, dtype)
    x = torch.tensor(case["x"], dtype=tdt, device="cuda")
    y = torch.tensor(case["y"], dtype=tdt, device="cuda")
    rs = mf.evaluate(x, y)
    again = mf.evaluate(x, y)  # the graph's replay
    assert torch.equal(rs[0].grad_x, again[0].grad_x)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # on the caller's own stream (set_stream), the same bits
        other = mf.evaluate(x, y, weights=[1.0] * 5)
    side.synchronize()
    assert torch.equal(rs[3].grad_y, other[3].grad_y)
    for k in range(5):
        es, idx = _separate(case, k, dtype, device="cuda")
        ti = torch.tensor(idx, device="cuda")
        gx, gy = es.evaluate_async(x[ti].contiguous(), y[ti].contiguous())
        r = es.wait_result()
        assert rs[k].energy == r.energy and rs[k].overflow == r.overflow
        assert torch.equal(rs[k].grad_x[ti], gx) and torch.equal(rs[k].grad_y[ti], gy)
        np.testing.assert_array_equal(mf.field(k).density_map(), es.density_map())


def test_pipeline_option():
    case = _fence_case(num_fences=2, n=400)
    with pytest.raises(ValueError, match="pipeline"):
        _system(case, pipeline="fast")
    with pytest.raises(Exception, match="Batched"):  # the CPU backend has no batched pipeline
        _system(case, pipeline="batched")
    mf = _system(case, pipeline="per_field")
    mf.evaluate(case["x"], case["y"])
    view = mf.field(1)
    assert view.num_movable == len(case["fields"][1].movable_index)
    np.testing.assert_array_equal(view.density_map(), mf._system.density_map(1))
    assert mf.pipeline == "per_field"
    assert _system(case, pipeline="auto").pipeline == "per_field"  # the CPU backend runs each field's system


@requires_cuda
def test_cuda_auto_pipeline():
    """pipeline="auto" (the default) on CUDA: batched for two or more fields with the DREAMPlace
    gradient scale, per-field for one field or the exact gradient."""
    case = _fence_case(num_fences=2, n=400)
    xl, yl, xh, yh = case["region"]
    default = efield.MultiFieldSystem(case["fields"], xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=32, num_bins_y=32,
                                      num_entries=case["entries"], device="cuda")
    assert default.pipeline == "batched"
    assert _system(case, device="cuda", pipeline="auto", gradient_scale="exact").pipeline == "per_field"
    one = dict(case, fields=case["fields"][:1])
    assert _system(one, device="cuda", pipeline="auto").pipeline == "per_field"


@requires_cuda
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_batched_pipeline_matches_per_field(dtype):
    """pipeline="batched": the density maps and overflow bitwise the per-field pipeline's (64-bit
    bins), energy and gradients to round-off (cuFFT's batched plans), and its own reruns bitwise."""
    case = _fence_case(num_fences=4)
    per_field, batched = _system(case, dtype, device="cuda"), _system(case, dtype, device="cuda", pipeline="batched")
    tdt = getattr(torch, dtype)
    x = torch.tensor(case["x"], dtype=tdt, device="cuda")
    y = torch.tensor(case["y"], dtype=tdt, device="cuda")
    a, b = per_field.evaluate(x, y), batched.evaluate(x, y)
    again = batched.evaluate(x, y)
    assert torch.equal(b[0].grad_x, again[0].grad_x)
    rtol = 2e-5 if dtype == "float32" else 1e-12
    for k in range(5):
        assert b[k].overflow == a[k].overflow and b[k].max_density == a[k].max_density
        assert abs(b[k].energy - a[k].energy) <= rtol * abs(a[k].energy)
        np.testing.assert_array_equal(batched.field(k).density_map(), per_field.field(k).density_map())
    scale = float(a[0].grad_x.abs().max())
    assert float((b[0].grad_x - a[0].grad_x).abs().max()) <= rtol * scale
