"""A straightforward pure-PyTorch implementation of the same density penalty as
efield.torch.ElectricPotential (docs/math.md section 2), the baseline bench_python.py measures the
op against: scatter the density map with index_add_, DCTs from torch.fft (one axis at a time, the
N-point reordering), the potential, the energy and both fields, then gather the gradient. The
gradient is the same field estimate (docs/math.md 2.9), returned by a custom autograd backward;
no kernels of its own. tests/python/test_torch_density.py checks it against the float64 NumPy
reference.
"""

import math

import torch


def _reorder(x, dim):
    """v[i] = x[2i], v[N-1-i] = x[2i+1] along dim (Makhoul's permutation)."""
    n = x.shape[dim]
    index = torch.cat([torch.arange(0, n, 2), torch.arange(n - 1 - n % 2, 0, -2)]).to(x.device)
    return x.index_select(dim, index)


def _unreorder(v, dim):
    n = v.shape[dim]
    order = torch.cat([torch.arange(0, n, 2), torch.arange(n - 1 - n % 2, 0, -2)])
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(n)
    return v.index_select(dim, inverse.to(v.device))


def _twiddle(n, dim, ndim, sign, dtype, device):
    k = torch.arange(n, device=device, dtype=dtype)
    w = torch.polar(torch.ones_like(k), sign * math.pi * k / (2 * n))
    shape = [1] * ndim
    shape[dim] = n
    return w.reshape(shape)


def dct(x, dim):
    """X[k] = sum_n x[n] cos(pi k (2n+1) / 2N) along dim."""
    n = x.shape[dim]
    spectrum = torch.fft.fft(_reorder(x, dim), dim=dim)
    return (spectrum * _twiddle(n, dim, x.dim(), -1.0, x.dtype, x.device)).real


def idct(X, dim):
    """x[n] = sum_k c_k X[k] cos(pi k (2n+1) / 2N) along dim (c_0 = 1, c_k = 2)."""
    n = X.shape[dim]
    reversed_ = torch.roll(torch.flip(X, [dim]), 1, dims=dim)  # X[N-k], with X[N] read at k = 0
    index = [slice(None)] * X.dim()
    index[dim] = 0
    reversed_[tuple(index)] = 0
    V = torch.complex(X, -reversed_) * _twiddle(n, dim, X.dim(), 1.0, X.dtype, X.device)
    return _unreorder(torch.fft.ifft(V, dim=dim, norm="forward").real, dim)


def idxst(X, dim):
    """x[n] = sum_k 2 X[k] sin(pi k (2n+1) / 2N) = (-1)^n idct(X')[n], X'[k] = X[N-k], X'[0] = 0."""
    n = X.shape[dim]
    shifted = torch.roll(torch.flip(X, [dim]), 1, dims=dim)
    index = [slice(None)] * X.dim()
    index[dim] = 0
    shifted[tuple(index)] = 0
    sign = torch.ones(n, dtype=X.dtype, device=X.device)
    sign[1::2] = -1
    shape = [1] * X.dim()
    shape[dim] = n
    return idct(shifted, dim) * sign.reshape(shape)


class TorchDensityPenalty(torch.nn.Module):
    """The density penalty in plain PyTorch, same arguments and layout as
    efield.torch.ElectricPotential (movable, fixed terminals, other nodes, fillers last)."""

    def __init__(self, node_size_x, node_size_y, xl, yl, xh, yh, num_bins_x, num_bins_y, num_movable_nodes,
                 num_terminals, num_filler_nodes, target_density, pos):
        super().__init__()
        dtype, device = pos.dtype, pos.device
        sx = torch.as_tensor(node_size_x, dtype=dtype, device=device)
        sy = torch.as_tensor(node_size_y, dtype=dtype, device=device)
        n, nm, nt, nf = len(sx), num_movable_nodes, num_terminals, num_filler_nodes
        self.n, self.M, self.N = n, num_bins_x, num_bins_y
        self.xl, self.yl = xl, yl
        self.bx, self.by = (xh - xl) / num_bins_x, (yh - yl) / num_bins_y
        self.td = target_density
        # Cells that move: movable nodes and fillers; their stretched sizes and charge ratio.
        self.cells = torch.cat([torch.arange(nm), torch.arange(n - nf, n)]).to(device)
        w, h = sx[self.cells], sy[self.cells]
        self.ws = torch.clamp(w, min=math.sqrt(2) * self.bx)
        self.hs = torch.clamp(h, min=math.sqrt(2) * self.by)
        self.dx, self.dy = (w - self.ws) / 2, (h - self.hs) / 2
        self.charge = w * h / (self.ws * self.hs)
        self.kx = int(torch.ceil(self.ws.max() / self.bx).item()) + 1
        self.ky = int(torch.ceil(self.hs.max() / self.by).item()) + 1
        # The fixed map: unstretched terminals, clamped to a bin's area, times td.
        with torch.no_grad():
            tx, ty = pos[nm:nm + nt], pos[n + nm:n + nm + nt]
            tw, th = sx[nm:nm + nt], sy[nm:nm + nt]
            fixed = torch.zeros(self.M * self.N, dtype=dtype, device=device)
            if nt:
                self._scatter(fixed, tx, ty, tw, th, torch.ones_like(tw), int(math.ceil(tw.max() / self.bx)) + 1,
                              int(math.ceil(th.max() / self.by)) + 1)
            self.fixed = torch.clamp(fixed, max=self.bx * self.by) * self.td
        u = torch.arange(self.M, dtype=dtype, device=device)[:, None]
        v = torch.arange(self.N, dtype=dtype, device=device)[None, :]
        self.wu = 2 * math.pi * u / self.M
        self.wv = 2 * math.pi * v / self.N * (self.bx / self.by)
        denominator = self.wu ** 2 + self.wv ** 2
        denominator[0, 0] = 1
        self.inv = 1 / denominator
        self.inv[0, 0] = 0

    def _scatter(self, out, x, y, ws, hs, charge, kx, ky):
        """out[m * N + n] += charge * ox(m) * oy(n) over the kx x ky bins from each cell's first."""
        m0 = torch.clamp(torch.floor((x - self.xl) / self.bx), 0, self.M - 1).long()
        n0 = torch.clamp(torch.floor((y - self.yl) / self.by), 0, self.N - 1).long()
        for i in range(kx):
            m = m0 + i
            left = self.xl + m * self.bx
            ox = torch.clamp(torch.minimum(x + ws, left + self.bx) - torch.maximum(x, left), min=0) * (m < self.M)
            for j in range(ky):
                k = n0 + j
                bottom = self.yl + k * self.by
                oy = torch.clamp(torch.minimum(y + hs, bottom + self.by) - torch.maximum(y, bottom), min=0) * (k < self.N)
                out.index_add_(0, torch.clamp(m, max=self.M - 1) * self.N + torch.clamp(k, max=self.N - 1),
                               charge * ox * oy)

    def _gather(self, field, x, y):
        m0 = torch.clamp(torch.floor((x - self.xl) / self.bx), 0, self.M - 1).long()
        n0 = torch.clamp(torch.floor((y - self.yl) / self.by), 0, self.N - 1).long()
        total = torch.zeros_like(x)
        flat = field.reshape(-1)
        for i in range(self.kx):
            m = m0 + i
            left = self.xl + m * self.bx
            ox = torch.clamp(torch.minimum(x + self.ws, left + self.bx) - torch.maximum(x, left), min=0) * (m < self.M)
            for j in range(self.ky):
                k = n0 + j
                bottom = self.yl + k * self.by
                oy = torch.clamp(torch.minimum(y + self.hs, bottom + self.by) - torch.maximum(y, bottom), min=0)
                oy = oy * (k < self.N)
                total += ox * oy * flat[torch.clamp(m, max=self.M - 1) * self.N + torch.clamp(k, max=self.N - 1)]
        return -self.charge * total

    def forward(self, pos):
        return _Function.apply(pos, self)

    def evaluate(self, pos):
        """Energy and the gradient in pos's layout."""
        n = self.n
        x = pos[:n][self.cells] + self.dx
        y = pos[n:][self.cells] + self.dy
        density = self.fixed.clone()
        self._scatter(density, x, y, self.ws, self.hs, self.charge, self.kx, self.ky)
        rho = density.reshape(self.M, self.N) / (self.bx * self.by)
        a = dct(dct(rho, 0), 1) * (4.0 / (self.M * self.N))
        phi = idct(idct(a * self.inv, 0), 1)
        ex = idct(idxst(a * self.wu * self.inv / 2, 0), 1)
        ey = idxst(idct(a * self.wv * self.inv / 2, 0), 1)
        energy = (phi * rho).sum()
        grad = torch.zeros_like(pos)
        grad[self.cells] = self._gather(ex, x, y)
        grad[n + self.cells] = self._gather(ey, x, y)
        return energy, grad


class _Function(torch.autograd.Function):
    @staticmethod
    def forward(ctx, pos, module):
        energy, grad = module.evaluate(pos.detach())
        ctx.save_for_backward(grad)
        return energy

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        return grad_output * grad, None
