"""efield: the electrostatic density penalty of analytical VLSI placement and fast DCT/DST
transforms, on NumPy arrays, PyTorch tensors (CPU and CUDA) and CuPy arrays without copies.

    import efield
    X = efield.dct2(x)                        # any float32/float64 array; same kind, same device
    Y = efield.fft.dctn(x, norm="ortho")      # scipy.fft's conventions
    es = efield.ElectrostaticSystem(...)      # the density system of a placer
    from efield.torch import ElectricPotential   # DREAMPlace-style autograd op (imports torch)
    efield.show_config()                      # version, CUDA or not, its architectures, the compiled op

See python/README.md.
"""

from ._efield import Error, built_with_cuda, cuda_device_count, forget_wisdom, load_wisdom, save_wisdom
from .build_info import build_info, show_config
from .bookshelf import (FIXED, FIXED_NI, MOVABLE, BookshelfDesign, generate_synthetic_design, ispd2005_designs,
                        ispd2005_standin, load_bookshelf)
from .system import ElectrostaticSystem, EvaluateResult, default_bin_grid, make_fillers, make_region_fillers
from .system3d import ElectrostaticSystem3D, EvaluateResult3D, make_fillers_3d
from .multi_field import (FieldSpec, MultiFieldSystem, fence_blockages, field_spec, make_batch_fields,
                          make_fence_fields)
from . import fft
from .transforms import (Plan1D, Plan2D, Plan3D, dct, dct2, dct2_3d, dct3, idct, idct2, idct2_3d, idct3, idct_idxst,
                         idxst, idxst_idct, plan_cache_clear, plan_cache_max_size, plan_cache_size)

__version__ = "0.1.0"  # pyproject.toml reads it; the extension's (CMake's project version) must agree

__all__ = [
    "Error", "built_with_cuda", "cuda_device_count", "build_info", "show_config",
    "save_wisdom", "load_wisdom", "forget_wisdom",
    "dct", "idct", "idxst", "dct2", "idct2", "idct_idxst", "idxst_idct", "dct2_3d", "idct2_3d", "fft",
    "Plan1D", "Plan2D", "Plan3D", "plan_cache_clear", "plan_cache_size", "plan_cache_max_size",
    "ElectrostaticSystem", "EvaluateResult", "make_fillers", "make_region_fillers", "default_bin_grid",
    "ElectrostaticSystem3D", "EvaluateResult3D", "make_fillers_3d",
    "load_bookshelf", "generate_synthetic_design", "ispd2005_standin", "ispd2005_designs", "BookshelfDesign",
    "MOVABLE", "FIXED", "FIXED_NI",
    "MultiFieldSystem", "FieldSpec", "field_spec", "make_fence_fields", "fence_blockages", "make_batch_fields",
]
