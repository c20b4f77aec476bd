//! Renders the Arrow values paimon-rust returns as JSON the way the Java runner's `Values` does
//! (compat/PROTOCOL.md): strings, booleans and numbers as they are, DATE as `YYYY-MM-DD`,
//! DECIMAL as its plain string, TIMESTAMP as an ISO local date-time without trailing fractional
//! zeros, BINARY/VARBINARY as base64. Also orders rows by primary key as the Java runner does.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use serde_json::{Map, Value};

/// One row of a batch as a JSON object of the fields named in `fields` (in that order).
pub fn row_object(
    batch: &RecordBatch,
    row: usize,
    fields: &[String],
) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for name in fields {
        let column = batch
            .column_by_name(name)
            .ok_or_else(|| format!("the read returned no column {name}"))?;
        out.insert(
            name.clone(),
            value(column.as_ref(), row).map_err(|e| format!("field {name}: {e}"))?,
        );
    }
    Ok(out)
}

/// The JSON form of array[row].
pub fn value(array: &dyn Array, row: usize) -> Result<Value, String> {
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    Ok(match array.data_type() {
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => array.as_primitive::<Int8Type>().value(row).into(),
        DataType::Int16 => array.as_primitive::<Int16Type>().value(row).into(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(row).into(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(row).into(),
        // A FLOAT as Java prints it (the shortest decimal that reads back as the same float),
        // not as the double it widens to.
        DataType::Float32 => float(&array.as_primitive::<Float32Type>().value(row).to_string()),
        DataType::Float64 => float(&array.as_primitive::<Float64Type>().value(row).to_string()),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).to_string()),
        DataType::Binary => Value::String(base64(array.as_binary::<i32>().value(row))),
        DataType::LargeBinary => Value::String(base64(array.as_binary::<i64>().value(row))),
        DataType::BinaryView => Value::String(base64(array.as_binary_view().value(row))),
        DataType::FixedSizeBinary(_) => {
            Value::String(base64(array.as_fixed_size_binary().value(row)))
        }
        DataType::Date32 => {
            let days = array.as_primitive::<Date32Type>().value(row);
            Value::String(civil_date(i64::from(days)))
        }
        DataType::Decimal128(_, scale) => {
            let unscaled = array.as_primitive::<Decimal128Type>().value(row);
            Value::String(plain_decimal(unscaled, *scale))
        }
        DataType::Timestamp(unit, _) => {
            // A local-zoned timestamp is an instant; Java renders it as its UTC local date-time,
            // which is what the epoch value is.
            let (v, per_second) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().value(row), 1),
                TimeUnit::Millisecond => (
                    array.as_primitive::<TimestampMillisecondType>().value(row),
                    1_000,
                ),
                TimeUnit::Microsecond => (
                    array.as_primitive::<TimestampMicrosecondType>().value(row),
                    1_000_000,
                ),
                TimeUnit::Nanosecond => (
                    array.as_primitive::<TimestampNanosecondType>().value(row),
                    1_000_000_000,
                ),
            };
            Value::String(timestamp(v, per_second))
        }
        other => {
            return Err(format!(
                "values of Arrow type {other} are not rendered by this runner"
            ))
        }
    })
}

fn float(shortest: &str) -> Value {
    match shortest.parse::<f64>() {
        Ok(f) if f.is_finite() => {
            serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
        // Java's JSON has no NaN or infinities; the Python runners render them as text too.
        _ => Value::String(shortest.to_string()),
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The proleptic Gregorian date `days` after 1970-01-01, as `YYYY-MM-DD` (Java's LocalDate).
fn civil_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}")
    } else {
        // LocalDate#toString writes a sign and at least four digits outside 0000-9999.
        format!(
            "{}{:04}-{m:02}-{d:02}",
            if y < 0 { "-" } else { "+" },
            y.abs()
        )
    }
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `value` units of 1/per_second seconds after the epoch as `YYYY-MM-DDTHH:MM:SS[.fraction]`,
/// the fraction without trailing zeros (the Java runner's Values#timestamp).
fn timestamp(value: i64, per_second: i64) -> String {
    let seconds = value.div_euclid(per_second);
    let sub = value.rem_euclid(per_second);
    let nanos = sub * (1_000_000_000 / per_second);
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400);
    let mut out = format!(
        "{}T{:02}:{:02}:{:02}",
        civil_date(days),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if nanos != 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out
}

/// The plain string of unscaled * 10^-scale (Java's BigDecimal#toPlainString).
fn plain_decimal(unscaled: i128, scale: i8) -> String {
    let negative = unscaled < 0;
    let digits = unscaled.unsigned_abs().to_string();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if scale <= 0 {
        out.push_str(&digits);
        if unscaled != 0 {
            out.extend(std::iter::repeat_n('0', usize::from(scale.unsigned_abs())));
        }
        return out;
    }
    let scale = usize::from(scale.unsigned_abs());
    if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(&digits);
    }
    out
}

/// Orders two rendered rows by the fields of `keys` as the Java runner's read does
/// (TableCommands#rowComparator): nulls first, numbers by value, everything else by the UTF-16
/// order of its rendered text (Java's String#compareTo).
pub fn compare_rows(a: &Map<String, Value>, b: &Map<String, Value>, keys: &[String]) -> Ordering {
    keys.iter()
        .map(|k| {
            compare_values(
                a.get(k).unwrap_or(&Value::Null),
                b.get(k).unwrap_or(&Value::Null),
            )
        })
        .find(|c| c.is_ne())
        .unwrap_or(Ordering::Equal)
}

fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Number(x), Value::Number(y)) => compare_numbers(x, y),
        _ => text(a).encode_utf16().cmp(text(b).encode_utf16()),
    }
}

fn compare_numbers(x: &serde_json::Number, y: &serde_json::Number) -> Ordering {
    match (x.as_i64(), y.as_i64()) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => x
            .as_f64()
            .unwrap_or(f64::NAN)
            .total_cmp(&y.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Jackson's JsonNode#asText of a rendered value.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_java_prints_them() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(19_753), "2024-01-31");
        assert_eq!(civil_date(19_782), "2024-02-29");
        assert_eq!(civil_date(-1), "1969-12-31");
        assert_eq!(civil_date(-719_528), "0000-01-01");
        assert_eq!(civil_date(2_932_897), "+10000-01-01");
    }

    #[test]
    fn timestamps_without_trailing_zeros() {
        assert_eq!(timestamp(0, 1_000), "1970-01-01T00:00:00");
        assert_eq!(timestamp(1_500, 1_000), "1970-01-01T00:00:01.5");
        assert_eq!(timestamp(-1, 1_000_000), "1969-12-31T23:59:59.999999");
        assert_eq!(
            timestamp(1_706_659_200_123_456_789, 1_000_000_000),
            "2024-01-31T00:00:00.123456789"
        );
    }

    #[test]
    fn decimals_plain() {
        assert_eq!(plain_decimal(12_345, 2), "123.45");
        assert_eq!(plain_decimal(-5, 3), "-0.005");
        assert_eq!(plain_decimal(0, 2), "0.00");
        assert_eq!(plain_decimal(7, 0), "7");
        assert_eq!(plain_decimal(7, -2), "700");
    }

    #[test]
    fn base64_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0xff, 0xfe, 0xfd, 0x00]), "//79AA==");
    }

    #[test]
    fn floats_as_their_shortest_decimal() {
        assert_eq!(float(&1.1f32.to_string()), serde_json::json!(1.1));
        assert_eq!(float(&f32::NAN.to_string()), serde_json::json!("NaN"));
    }

    #[test]
    fn rows_ordered_as_java_orders_them() {
        let row = |r: &str, id: i64| {
            let mut m = Map::new();
            m.insert(
                "r".into(),
                if r.is_empty() {
                    Value::Null
                } else {
                    Value::String(r.into())
                },
            );
            m.insert("id".into(), id.into());
            m
        };
        let keys = ["r".to_string(), "id".to_string()];
        assert_eq!(
            compare_rows(&row("", 9), &row("a", 1), &keys),
            Ordering::Less
        );
        assert_eq!(
            compare_rows(&row("eu", 10), &row("eu", 9), &keys),
            Ordering::Greater
        );
        assert_eq!(
            compare_rows(&row("eu", 1), &row("中国", 0), &keys),
            Ordering::Less
        );
        // UTF-16 order: a supplementary character (surrogates D800-DFFF) sorts before U+FF01.
        assert_eq!(
            compare_rows(&row("🎉", 0), &row("！", 0), &keys),
            Ordering::Less
        );
    }
}
