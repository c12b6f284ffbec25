"""array_libs.py: what bench/torch_sum.py asks of torch and of CuPy, each behind the
same few methods (Lib), and the harness's input drawn with NumPy (draw).

LIBS names the programs they give (the rows of bench/torch_sum.py) for the
comparison's scripts, which import it from here: importing this file needs
nothing but the standard library. Lib and draw need NumPy and the library
they wrap. Lib.load and Lib.reduce serve bench/compare_types.py: a typed
array from a file step 12 saved, and each operator as the library's users
write it.
"""
import importlib

LIBS = {"torch.sum": "torch", "cupy.sum": "cupy"}     # a row's step name -> the module it needs

M64 = (1 << 64) - 1
GOLDEN = 0x9e3779b97f4a7c15


def draw(seed, first, count, np):
    """Elements [first, first + count) of the harness's float input for seed:
    common/data.c's SplitMix64 finaliser over a Weyl sequence, in uint64
    arithmetic that wraps as C's does."""
    z = (seed + GOLDEN) & M64
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    h = np.arange(first, first + count, dtype=np.uint64)
    h *= np.uint64(GOLDEN)
    h += np.uint64(z ^ (z >> 31))                  # the seed's key
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xbf58476d1ce4e5b9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94d049bb133111eb)
    h ^= h >> np.uint64(31)
    k = (h >> np.uint64(40)).astype(np.int32) - (1 << 23)
    return k.astype(np.float32) * np.float32(2.0 ** -23)   # exact: |k| <= 2^23



class Lib:
    """The few things each library is asked for."""

    def __init__(self, name):
        self.name = name
        self.m = importlib.import_module(name)
        if name == "torch":
            t = self.m
            if not hasattr(t.cuda, "_sleep"):
                raise RuntimeError("torch.cuda._sleep is missing: no way to queue the runs behind a spin")
            self.props = t.cuda.get_device_properties(0)
            self.device = t.cuda.get_device_name(0)
            self.l2 = getattr(self.props, "L2_cache_size", 64 << 20)
            self.version = t.__version__
        else:
            rt = self.m.cuda.runtime
            p = rt.getDeviceProperties(0)
            self.device = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
            self.l2 = p.get("l2CacheSize", 64 << 20)
            self.version = self.m.__version__
            self.spin_kernel = self.m.RawKernel(
                'extern "C" __global__ void spin(long long cycles)'
                "{ long long t = clock64(); while (clock64() - t < cycles) { } }", "spin")

    def upload(self, host):
        if self.name == "torch":
            return self.m.from_numpy(host).cuda()
        return self.m.asarray(host)

    def empty(self, n):
        t = self.m
        return t.empty(n, dtype=t.float32, device="cuda") if self.name == "torch" else t.empty(n, dtype=t.float32)

    def sum(self, x):
        return self.m.sum(x)

    def exact(self, x):
        """The float64 sum of x and of |x|: exact for the harness's inputs."""
        if self.name == "torch":
            d = x.double()
            return float(d.sum()), float(d.abs().sum())
        d = x.astype(self.m.float64)
        return float(d.sum()), float(self.m.abs(d).sum())

    def event(self):
        return self.m.cuda.Event(enable_timing=True) if self.name == "torch" else self.m.cuda.Event()

    def elapsed_us(self, a, b):
        return 1e3 * (a.elapsed_time(b) if self.name == "torch" else self.m.cuda.get_elapsed_time(a, b))

    def spin(self, cycles):
        if self.name == "torch":
            self.m.cuda._sleep(int(cycles))
        else:
            self.spin_kernel((1,), (1,), (self.m.int64(int(cycles)),))

    def sync(self):
        (self.m.cuda.synchronize if self.name == "torch" else self.m.cuda.Device(0).synchronize)()

    def load(self, path, dtype):
        """The array in path (a .npy, or a raw *.bf16 file of 16-bit words) on the GPU, or None where
        the library has no such dtype (CuPy and bf16)."""
        np = importlib.import_module("numpy")
        if dtype != "bf16":
            return self.upload(np.load(path))
        if self.name != "torch":
            return None
        return self.m.from_numpy(np.fromfile(path, dtype="<i2")).view(self.m.bfloat16).cuda()

    def reduce(self, op, x):
        """op (sum, max, min, argmax, sumsq) of x as the library's users write it: the sums of half and
        bf16 asked for in float32 (dtype=), the sum of squares of x converted to float32."""
        m = self.m
        if op == "sum":
            narrow = x.dtype in ((m.float16, m.bfloat16) if self.name == "torch" else (m.float16,))
            return m.sum(x, dtype=m.float32) if narrow else m.sum(x)
        if op == "sumsq":
            return m.sum(m.square(x.float() if self.name == "torch" else x.astype(m.float32)))
        if self.name == "torch":
            return {"max": m.amax, "min": m.amin, "argmax": m.argmax}[op](x)
        return {"max": m.max, "min": m.min, "argmax": m.argmax}[op](x)

    def copy(self, x):
        return x.clone() if self.name == "torch" else x.copy()

    def release(self):
        """Gives the memory the library keeps cached back to the GPU, for the next program."""
        if self.name == "torch":
            self.m.cuda.empty_cache()
        else:
            self.m.get_default_memory_pool().free_all_blocks()

    def try_out(self):
        """One of everything the timing will do, on a small array: a library that imports but
        cannot run here (no GPU for it, no NVRTC for CuPy's kernels) fails now, not midway."""
        x = self.upload(draw(1, 0, 1000, importlib.import_module("numpy")))
        a, b = self.event(), self.event()
        a.record()
        self.spin(1000)
        float(self.sum(x))
        b.record()
        self.sync()
        self.elapsed_us(a, b)
        self.exact(x)
