"""Programs that run inside the sandbox to test a candidate: call-based and assert-based drivers.

Each driver is plain Python source assembled from the modules here and handed to the engine, so
the same file is both imported by our tests and shipped, verbatim, into the sandbox.
"""
