"""The parts of ``xlapy explain``'s report (``xlapy.tools.explain`` is the entry point).

``capture`` compiles a module for the CPU as the compiler does and keeps what each
step saw (pass texts, fusion decisions, buffer assignments, IR and assembly);
``kernels`` cuts the IR and assembly per kernel; ``live_ranges`` reads the buffers'
live ranges back from an assignment; ``buffer_chart`` and ``graph_layout`` draw SVG;
``sections`` turns each part into HTML and ``page`` puts the page together.
"""
