"""The fast CSV of rows of numbers is the csv module's text, or declines."""
from __future__ import annotations

import csv
import io
import json
from itertools import chain

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.site.numtext import number_rows, number_texts
from scorer.site.tables import Column, TableView, _csv_value


def csv_module(rows: list) -> str:
    """What TableView.to_csv wrote for these rows before the fast path."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(
        [_csv_value(v) for v in row] if bool in map(type, row) else row for row in rows)
    return out.getvalue()


NUMBERS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.floats(min_value=0, max_value=1), st.sampled_from([0.0, -0.0, 1e-4, 9.99e-5, 1e16, 1.5e16]))
IDS = st.one_of(st.text(max_size=8), st.text(alphabet="ab,\"\r\n\x00 é-e+0.nul\\\x7f\u2028\ud800", max_size=6))


@settings(max_examples=400, deadline=None)
@given(st.integers(min_value=1, max_value=5).flatmap(
    lambda width: st.lists(st.tuples(IDS, st.lists(NUMBERS, min_size=width, max_size=width)), max_size=6)))
def test_same_text_as_the_csv_module_or_none(rows):
    rows = [[i, *values] for i, values in rows]
    fast = number_rows(rows, set(map(type, chain.from_iterable(rows))))
    assert fast is None or fast.decode() == csv_module(rows)


def test_typical_rows_take_the_fast_path():
    rows = [["q1", 0.5, None, 1, 0.123456789], ["q2", 1 / 3, 2.0, None, True], ["", 0.0, -0.0, 1e15, 12345.678]]
    assert number_rows(rows, set(map(type, chain.from_iterable(rows)))).decode() == csv_module(rows)


def test_declines_what_it_would_write_differently():
    for row in (["q", 1e-05], ["q", 2e16], ["q", float("nan")], ["q", float("inf")], ["q", "text"], ["true", 1.0],
                ['a"b', 1.0], ["a,b", 1.0], ["a\nb", 1.0], ["a\rb", 1.0], [1, 1.0], ["q"]):
        assert number_rows([["ok", 0.5], row], set(map(type, ["ok", 0.5, *row]))) is None, row


def test_a_table_view_writes_the_same_csv_either_way():
    view = TableView("t", "T", [Column("id", "Id"), Column("v", "V", numeric=True)])
    for qid, value in (("q1", 0.25), ('evil,"id"\n', 1e-7), ("q3", None)):
        view.add([qid, value])
    assert view.to_csv() == "id,v\n" + csv_module(view.rows)


def test_constants_are_last_columns_of_every_csv_row_and_json_header_fields():
    """Fast path (ids and numbers) and slow path (an id the csv module quotes) give the
    same columns: the constants after the others, quoted where the csv module quotes."""
    constants = (("gold_version", 2), ("gold_state", "final, v2"))
    fast = TableView("t", "T", [Column("id", "Id"), Column("v", "V", numeric=True)], constants=constants)
    fast.extend([["q1", 0.25], ["q2", None]])
    assert fast.to_csv() == 'id,v,gold_version,gold_state\nq1,0.25,2,"final, v2"\nq2,,2,"final, v2"\n'
    slow = TableView("t", "T", [Column("id", "Id"), Column("v", "V", numeric=True)], constants=constants)
    slow.extend([['a"b', 0.5], ["q", True]])
    assert slow.to_csv() == 'id,v,gold_version,gold_state\n"a""b",0.5,2,"final, v2"\nq,true,2,"final, v2"\n'
    head = json.loads(fast.to_json())
    assert (head["gold_version"], head["gold_state"]) == (2, "final, v2") and head["rows"][0] == {"id": "q1", "v": 0.25}


@settings(max_examples=300, deadline=None)
@given(st.lists(NUMBERS, max_size=12), st.booleans(), st.booleans())
def test_numeric_cells_as_formatted_value_by_value(values, row_header, secondary):
    from scorer.site.tables import _raw_cells, _raw_html
    column = Column("v", "V", numeric=True, row_header=row_header, secondary=secondary)
    assert _raw_cells(column, values) == list(map(_raw_html(column), values))


def test_number_texts_are_reprs_or_declined():
    assert number_texts([0.5, -0.0, 0.0, 1, 1.0, None, True, float("nan")]) == [
        "0.5", "-0.0", "0.0", "1", "1.0", "null", "true", "null"]
    assert number_texts([0.5, 1e-05]) is None and number_texts(["0.5"]) is None and number_texts([2e16]) is None
    assert number_texts([2**64, -2**70]) == [str(2**64), str(-2**70)]  # any int, as repr writes it


def test_an_e_in_an_id_is_no_exponent_and_an_exponent_beside_one_is_seen():
    """BioASQ ids are hexadecimal (``55031181e9bde69634000014``): their ``e`` keep the fast
    path, while a number written with an exponent (``1e16``, no sign) still declines."""
    rows = [["55031181e9bde69634000014", 0.5, True], ["5e1", False, 2]]
    assert number_rows(rows, {str, float, bool, int}).decode() == csv_module(rows)
    assert number_rows([*rows, ["q", 1e16]], {str, float, bool, int}) is None
