"""The emitters: native code per instruction, one module per op family.

A module named ``<family>_<what>`` holds the emitters of that family's ops
(``xlapy.opcode.FAMILIES``); ``loops``, ``generators`` and ``row_groups`` are the loop
machinery they share, and ``registry`` the table they register into.
"""
