// bench_ispd/common: shared benchmark helpers live here.
