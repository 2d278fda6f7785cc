"""Differential testing in `make test`: random programs agree on the CPU backend and the
interpreter (a bounded number of examples; `make fuzz` runs the same for as long as asked)."""

from hypothesis import HealthCheck, given, settings

from xlapy.hlo import parse_module
from xlapy.testing.differential import check_program
from xlapy.testing.random_programs import programs


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_random_programs_agree_with_the_interpreter(program):
    check_program(program)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_random_programs_are_valid_hlo_that_round_trips(program):
    module = parse_module(program.text)
    module.verify()
    assert parse_module(module.to_text()).to_text() == module.to_text()
