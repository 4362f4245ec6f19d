"""Units (SPEC §4): parse_* turn what people type into SI base units, format_* turn those back
into text, and nonsense is a ValueError whose message says what was being parsed and what it
got."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnmem
from dnnmem import (
    format_bandwidth,
    format_bytes,
    format_throughput,
    format_time,
    parse_bandwidth,
    parse_bytes,
    parse_throughput,
)

KIB, MIB, GIB, TIB = 2**10, 2**20, 2**30, 2**40


# --------------------------------------------------------------------------------------------
# parse_bytes
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24MiB", 24 * MIB),  # 25,165,824: the thesis's cache sizes are MiB
        ("24MiB", 25_165_824),
        ("40MB", 40_000_000),
        ("1.5KiB", 1536),
        ("512 KiB", 512 * 1024),
        (" 3 GiB ", 3 * GIB),
        ("2TiB", 2 * TIB),
        ("1kB", 1000),
        ("1KB", 1000),  # a common spelling of kB, still SI
        ("7GB", 7 * 10**9),
        ("0B", 0),
        ("0", 0),
        ("123", 123),
        ("123B", 123),
        (".5MiB", MIB // 2),
        ("1e3kB", 10**6),
        ("+1KiB", 1024),
        ("1.3MiB", 1363149),  # 1363148.8 bytes: a prefixed amount is rounded to the byte
        ("0.0006KiB", 1),  # 0.6144 bytes
    ],
)
def test_parse_bytes_strings(text, expected):
    got = parse_bytes(text)
    assert got == expected
    assert type(got) is int


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0), (1, 1), (4096, 4096), (10**12, 10**12), (1.6, 2), (2.0**20, MIB)],
)
def test_parse_bytes_numbers(value, expected):
    got = parse_bytes(value)
    assert got == expected
    assert type(got) is int


def test_parse_bytes_binary_and_si_differ():
    assert parse_bytes("1MiB") - parse_bytes("1MB") == 1_048_576 - 1_000_000
    assert parse_bytes("1GiB") / parse_bytes("1GB") == pytest.approx(1.073741824)


# --------------------------------------------------------------------------------------------
# parse_bandwidth / parse_throughput
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("616GB/s", 616e9),
        ("616 GB/s", 616e9),
        ("1TiB/s", 2.0**40),
        ("1TiB/s", 1_099_511_627_776),
        ("2TB/s", 2e12),
        ("3.35TB/s", 3.35e12),
        ("100MBps", 1e8),
        ("24MiB/s", 24 * MIB),
        ("5 B/s", 5.0),
        ("0GB/s", 0.0),
    ],
)
def test_parse_bandwidth(text, expected):
    assert parse_bandwidth(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("13.45TFLOPS", 13.45e12),
        ("2.765 TFLOPS", 2.765e12),
        ("1PFLOP/s", 1e15),
        ("989.4 TFLOPS", 989.4e12),
        ("5 Gflops", 5e9),
        ("100 FLOPS", 100.0),
        ("0 TFLOPS", 0.0),
    ],
)
def test_parse_throughput(text, expected):
    assert parse_throughput(text) == expected


def test_rates_accept_plain_numbers():
    assert parse_bandwidth(616e9) == 616e9
    assert parse_bandwidth(5) == 5.0
    assert parse_throughput(13.45e12) == 13.45e12
    assert parse_throughput(0) == 0.0
    assert isinstance(parse_bandwidth(5), float)
    assert isinstance(parse_throughput(2), float)


def test_units_do_not_cross_over():
    """A size is not a bandwidth and a bandwidth is not a throughput."""
    with pytest.raises(ValueError, match="bandwidth"):
        parse_bandwidth("24MiB")
    with pytest.raises(ValueError, match="throughput"):
        parse_throughput("616GB/s")
    with pytest.raises(ValueError, match="size"):
        parse_bytes("616GB/s")
    with pytest.raises(ValueError, match="size"):
        parse_bytes("13TFLOPS")


# --------------------------------------------------------------------------------------------
# Nonsense is a clear ValueError naming the quantity and the offending input
# --------------------------------------------------------------------------------------------
PARSERS = [(parse_bytes, "size"), (parse_bandwidth, "bandwidth"), (parse_throughput, "throughput")]

# Inputs whose repr must appear in the message as given.
NONSENSE = [
    "",
    "abc",
    "nanMB",
    "5 parsecs",
    None,
    True,
    False,
    float("nan"),
    float("inf"),
    -float("inf"),
    -3,
    -0.5,
    "inf",
    "1.2.3MB",
    "MB",
    [],
    b"1MB",
    "1 2 MB",
]


@pytest.mark.parametrize(("parse", "what"), PARSERS, ids=lambda p: getattr(p, "__name__", p))
@pytest.mark.parametrize("bad", NONSENSE, ids=repr)
def test_nonsense_is_a_clear_value_error(parse, what, bad):
    with pytest.raises(ValueError) as info:
        parse(bad)
    msg = str(info.value)
    assert msg.startswith(what + ":"), msg
    assert repr(bad) in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize(
    "parse, text, hint",
    [
        # bits for bytes: a network engineer's Gb/s is an eighth of dnnmem's GB/s
        (
            parse_bandwidth,
            "100Gb/s",
            "; a lower-case b is a bit, dnnmem counts bytes: 100Gb/s is 12.5GB/s",
        ),
        (parse_bytes, "128Mb", "; a lower-case b is a bit, dnnmem counts bytes: 128Mb is 16MB"),
        (parse_bytes, "128mib", "; did you mean '128MiB'?"),  # the case
        (parse_bandwidth, "616 gb/s", "; did you mean '616GB/s'?"),
        (parse_throughput, "13.45 tflops", "; did you mean '13.45TFLOPS'?"),
        (parse_bandwidth, "616GB", "; did you mean '616GB/s'?"),  # a size for a rate
        (parse_bytes, "616GB/s", "; did you mean '616GB'?"),  # and back
        (parse_bandwidth, "5G", "; did you mean '5GB/s'?"),
        (parse_throughput, "13.45TFLOP", "; did you mean '13.45TFLOP/s' or '13.45TFLOPS'?"),
        (parse_bytes, "1.5MiBB", "; did you mean '1.5MiB'?"),  # a close spelling
        (parse_bytes, "24 furlongs", ""),  # nothing close: the list alone
    ],
)
def test_an_unknown_unit_says_what_was_probably_meant(parse, text, hint):
    """Was only the list of every valid unit (39 for a bandwidth)."""
    with pytest.raises(ValueError) as info:
        parse(text)
    unit = text.lstrip("0123456789. ")
    assert (
        str(info.value).split(" (valid: ")[0].endswith(f"unknown unit {unit!r} in {text!r}{hint}")
    )


def test_nonsense_messages_say_what_is_wrong():
    with pytest.raises(ValueError, match=r"unknown unit 'parsecs' in '5 parsecs'.*MiB"):
        parse_bytes("5 parsecs")
    with pytest.raises(ValueError, match=r"cannot read 'abc'; write it like '24MiB'"):
        parse_bytes("abc")
    with pytest.raises(ValueError, match=r"cannot read ''; write it like '616GB/s'"):
        parse_bandwidth("")
    with pytest.raises(ValueError, match=r"finite number >= 0, got nan"):
        parse_throughput(float("nan"))
    with pytest.raises(ValueError, match=r"finite number >= 0, got -3"):
        parse_bytes(-3)
    with pytest.raises(ValueError, match=r"expected a number or a string with a unit, got None"):
        parse_bandwidth(None)
    with pytest.raises(ValueError, match=r"expected a number or a string with a unit, got True"):
        parse_throughput(True)


@pytest.mark.parametrize(
    ("parse", "what", "text"),
    [
        (parse_bytes, "size", "-1MiB"),
        (parse_bytes, "size", "1e400MB"),
        (parse_bandwidth, "bandwidth", "-5GB/s"),
        (parse_bandwidth, "bandwidth", "1e400TB/s"),
        (parse_throughput, "throughput", "-2TFLOPS"),
    ],
)
def test_negative_or_overflowing_text_is_a_value_error(parse, what, text):
    with pytest.raises(ValueError) as info:
        parse(text)
    assert str(info.value) == f"{what}: must be a finite amount >= 0, got {text!r}"


@pytest.mark.parametrize("text", ["-1MiB", "1e400MB", " -0.5 KiB "])
def test_negative_text_message_names_the_text(text):
    with pytest.raises(ValueError) as info:
        parse_bytes(text)
    # the text as typed, not the number it was read as
    assert str(info.value) == f"size: must be a finite amount >= 0, got {text!r}"
    assert repr(text) in str(info.value)


# --------------------------------------------------------------------------------------------
# format_*
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (MIB, "1 MiB"),
        (24 * MIB, "24 MiB"),
        (40e6, "38.15 MiB"),
        (3 * GIB, "3 GiB"),
        (2 * TIB, "2 TiB"),
        (1024 * TIB, "1 PiB"),  # were "1024 TiB", and 2**62 bytes "4.194e+06 TiB"
        (2**62, "4096 PiB"),
    ],
)
def test_format_bytes_binary(value, expected):
    assert format_bytes(value) == expected


def test_format_bytes_si_and_digits():
    assert format_bytes(40e6, binary=False) == "40 MB"
    assert format_bytes(1500, binary=False) == "1.5 kB"
    assert format_bytes(999, binary=False) == "999 B"
    assert format_bytes(123_456_789, binary=False, digits=2) == "1.2e+02 MB"
    assert format_bytes(123_456_789, binary=False, digits=6) == "123.457 MB"
    assert format_bytes(1e15, binary=False) == "1 PB" and format_bytes(2e18, binary=False) == "2 EB"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (616e9, "616 GB/s"),
        (2e12, "2 TB/s"),
        (4.8e12, "4.8 TB/s"),
        (1.5e6, "1.5 MB/s"),
        (0, "0 B/s"),
        (1e15, "1 PB/s"),  # was "1000 TB/s"; 1 EB/s was "1e+06 TB/s"
        (1e18, "1 EB/s"),
    ],
)
def test_format_bandwidth(value, expected):
    assert format_bandwidth(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (13.45e12, "13.45 TFLOPS"),
        (2.765e12, "2.765 TFLOPS"),
        (1.979e15, "1.979 PFLOPS"),
        (5e9, "5 GFLOPS"),
        (0, "0 FLOPS"),
        (2e18, "2 EFLOPS"),  # was "2000 PFLOPS"
    ],
)
def test_format_throughput(value, expected):
    assert format_throughput(value) == expected


def test_format_count_up_to_exa():
    from dnnmem.units import format_count

    assert format_count(4.1e9, "FLOP") == "4.1 GFLOP"
    # VGG-16 at batch 2^24 printed "1555 PFLOP"
    assert format_count(1.555e18, "FLOP") == "1.555 EFLOP"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "0 s"),
        (2.5, "2.5 s"),
        (0.0543, "54.3 ms"),
        (3e-6, "3 µs"),
        (7.5e-9, "7.5 ns"),
        (125.0, "125 s"),
    ],
)
def test_format_time(value, expected):
    assert format_time(value) == expected


def test_format_time_below_a_nanosecond_keeps_its_unit():
    # below the smallest step, the value is written in that step's unit (ns), not in seconds
    assert format_time(1e-12) == "0.001 ns"
    assert format_time(5e-10) == "0.5 ns"


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", [0, 1, 1000, 1024, 1536, MIB, 24 * MIB, 98 * MIB, GIB, 40 * GIB, TIB]
)
def test_bytes_round_trip_exact(value):
    assert parse_bytes(format_bytes(value)) == value


@pytest.mark.parametrize("value", [0, 1000, 40_000_000, 7 * 10**9, 2 * 10**12])
def test_bytes_si_round_trip_exact(value):
    assert parse_bytes(format_bytes(value, binary=False)) == value


@pytest.mark.parametrize("value", [0.0, 616e9, 1.935e12, 3.35e12, 4.8e12, 5.3e12, 100e6])
def test_bandwidth_round_trip_exact(value):
    assert parse_bandwidth(format_bandwidth(value)) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("value", [0.0, 13.45e12, 2.765e12, 19.5e12, 989.4e12, 1.307e15])
def test_throughput_round_trip_exact(value):
    assert parse_throughput(format_throughput(value)) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text", ["24 MiB", "1.5 KiB", "98 MiB", "3 GiB"])
def test_format_of_parse_is_canonical(text):
    assert format_bytes(parse_bytes(text)) == text


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1.0, max_value=1e17, allow_nan=False, allow_infinity=False))
def test_round_trips_within_the_printed_precision(x):
    # 4 significant digits are printed: the relative error is at most half a unit of the 4th.
    assert parse_bandwidth(format_bandwidth(x)) == pytest.approx(x, rel=5.01e-4)
    assert parse_throughput(format_throughput(x)) == pytest.approx(x, rel=5.01e-4)
    # bytes are whole: the printed value's error plus half a byte of rounding (a sum, where
    # pytest.approx would take the larger of the two); a fraction written in bytes ("1.5 B")
    # is refused, not rounded
    for text in (format_bytes(x), format_bytes(x, binary=False)):
        if text.endswith(" B") and not float(text[:-2]).is_integer():
            with pytest.raises(ValueError, match="is not a whole number of bytes"):
                parse_bytes(text)
        else:
            assert abs(parse_bytes(text) - x) <= 5.01e-4 * x + 0.5
    # more digits, less error
    assert parse_bandwidth(format_bandwidth(x, digits=12)) == pytest.approx(x, rel=5.01e-12)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=2**50),
    st.sampled_from(["B", "KiB", "MiB", "GiB", "kB", "MB", "GB"]),
)
def test_parse_bytes_is_linear_in_the_unit(n, unit):
    factor = {"B": 1, "KiB": KIB, "MiB": MIB, "GiB": GIB, "kB": 10**3, "MB": 10**6, "GB": 10**9}[
        unit
    ]
    got = parse_bytes(f"{n}{unit}")
    assert got == pytest.approx(n * factor, rel=1e-15)
    assert parse_bytes(f"{n} {unit}") == got


def test_units_are_exported_from_the_package():
    assert dnnmem.parse_bytes is parse_bytes
    assert dnnmem.format_time is format_time
    assert math.isclose(dnnmem.parse_bandwidth("1TiB/s"), 2**40)


@pytest.mark.parametrize(
    "value, message",
    [
        # Issue 26: `--capacity 0.5` rounded to 0 bytes (no cache) and said nothing.
        (
            "0.5",
            "size: '0.5' is not a whole number of bytes (did you mean 0.5KiB, 0.5MiB or 0.5GiB?)",
        ),
        (
            "1.4B",
            "size: '1.4B' is not a whole number of bytes (did you mean 1.4KiB, 1.4MiB or 1.4GiB?)",
        ),
        (
            0.5,
            "size: 0.5 is less than one byte, which rounds to 0, no cache at all; did you "
            "forget a unit, as in '0.5MiB'?",
        ),
        (
            0.4,
            "size: 0.4 is less than one byte, which rounds to 0, no cache at all; did you "
            "forget a unit, as in '0.4MiB'?",
        ),
        (
            "0.0001KiB",
            "size: '0.0001KiB' (0.1024 bytes) is less than one byte, which rounds to 0, no "
            "cache at all",
        ),
    ],
)
def test_a_fraction_of_a_byte_is_refused(value, message):
    with pytest.raises(ValueError) as e:
        parse_bytes(value)
    assert str(e.value) == message


def test_numbers_round_to_the_nearest_byte():
    """The rounding that stays (documented in parse_bytes): a computed size, half to even."""
    assert parse_bytes(0.3 * 2**30) == 322122547  # 322122547.2
    assert parse_bytes(1.5) == 2 and parse_bytes(2.5) == 2 and parse_bytes(0.6) == 1
    assert parse_bytes(0.0) == 0 and parse_bytes("0") == 0 and parse_bytes("0.0MiB") == 0
