"""What runs the compiled code: the JIT, the native thread pool, BLAS, the calls into
Python, the executable and its (optionally guarded) memory.
"""
