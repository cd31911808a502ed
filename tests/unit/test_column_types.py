import pytest

from schemas.column_types import (
    ColumnDef,
    ColumnKind,
    ColumnType,
    ColumnTypeError,
    is_safe_widening,
    parse_column_type,
    validate_column_name,
    validate_columns,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("STRING", "STRING"),
        ("BOOLEAN", "BOOLEAN"),
        ("INT", "INT"),
        ("LONG", "LONG"),
        ("DOUBLE", "DOUBLE"),
        ("DATE", "DATE"),
        ("TIMESTAMP", "TIMESTAMP"),
        ("TIMESTAMPTZ", "TIMESTAMPTZ"),
        ("STRING_LIST", "STRING_LIST"),
        ("JSON", "JSON"),
        ("DECIMAL(12,2)", "DECIMAL(12,2)"),
        (" decimal( 38 , 0 ) ", "DECIMAL(38,0)"),
        ("DECIMAL(1,1)", "DECIMAL(1,1)"),
        ("timestamptz", "TIMESTAMPTZ"),
    ],
)
def test_parse_gives_the_canonical_spelling(text: str, canonical: str) -> None:
    parsed = parse_column_type(text)
    assert str(parsed) == canonical
    assert parse_column_type(str(parsed)) == parsed


def test_decimal_keeps_precision_and_scale() -> None:
    assert parse_column_type("DECIMAL(12,2)") == ColumnType(ColumnKind.DECIMAL, 12, 2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("DECIMAL", "needs a precision and a scale"),
        ("DECIMAL(0,0)", "precision must be between 1 and 38"),
        ("DECIMAL(39,2)", "precision must be between 1 and 38"),
        ("DECIMAL(5,6)", "scale must be between 0 and the precision 5"),
        ("DECIMAL(5)", "unknown column type"),
        ("DECIMAL(-1,0)", "unknown column type"),
        ("VARCHAR", "unknown column type 'VARCHAR'"),
        ("INTEGER", "unknown column type"),
        ("", "unknown column type"),
        ("STRING LIST", "unknown column type"),
    ],
)
def test_invalid_types_are_refused_with_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(ColumnTypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_column_type(text)


def test_non_string_type_is_refused() -> None:
    with pytest.raises(ColumnTypeError, match="must be a string"):
        parse_column_type(12)  # type: ignore[arg-type]


def test_precision_on_a_plain_type_is_refused() -> None:
    with pytest.raises(ColumnTypeError, match="takes no precision"):
        ColumnType(ColumnKind.LONG, 10, 0)


@pytest.mark.parametrize("name", ["a", "amount", "x1", "snake_case_2", "a" * 63])
def test_valid_column_names(name: str) -> None:
    assert validate_column_name(name) == name


@pytest.mark.parametrize("name", ["", "1st", "Amount", "with-dash", "a b", "é", "a" * 64, "_x"])
def test_invalid_column_names(name: str) -> None:
    with pytest.raises(ColumnTypeError):
        validate_column_name(name)


@pytest.mark.parametrize("name", ["_load_id", "_record_id", "_anything"])
def test_underscore_names_are_reserved(name: str) -> None:
    with pytest.raises(ColumnTypeError, match="reserved"):
        validate_column_name(name)


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("INT", "LONG", True),
        ("INT", "INT", True),
        ("DECIMAL(10,2)", "DECIMAL(12,2)", True),
        ("DECIMAL(10,2)", "DECIMAL(10,2)", True),
        ("DECIMAL(10,2)", "DECIMAL(9,2)", False),
        ("DECIMAL(10,2)", "DECIMAL(12,3)", False),
        ("LONG", "INT", False),
        ("INT", "DOUBLE", False),
        ("LONG", "DECIMAL(38,0)", False),
        ("DATE", "TIMESTAMP", False),
        ("TIMESTAMP", "TIMESTAMPTZ", False),
        ("STRING", "JSON", False),
        ("JSON", "STRING", False),
        ("STRING", "STRING_LIST", False),
    ],
)
def test_safe_widening(old: str, new: str, safe: bool) -> None:
    assert is_safe_widening(parse_column_type(old), parse_column_type(new)) is safe


def test_only_string_columns_can_be_masked() -> None:
    assert ColumnDef("email", parse_column_type("STRING"), masked=True).masked
    with pytest.raises(ColumnTypeError, match="only STRING columns can be masked"):
        ColumnDef("n", parse_column_type("LONG"), masked=True)


def test_column_def_validates_its_name() -> None:
    with pytest.raises(ColumnTypeError, match="reserved"):
        ColumnDef("_load_id", parse_column_type("STRING"))


def test_column_lists_need_unique_names() -> None:
    a = ColumnDef("a", parse_column_type("INT"))
    validate_columns([a])
    with pytest.raises(ColumnTypeError, match="duplicate column name 'a'"):
        validate_columns([a, ColumnDef("a", parse_column_type("LONG"))])
    with pytest.raises(ColumnTypeError, match="at least one column"):
        validate_columns([])
