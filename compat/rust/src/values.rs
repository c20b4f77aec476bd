//! Renders the Arrow values paimon-rust returns as JSON the way the Java runner's `Values` does
//! (compat/PROTOCOL.md): strings, booleans and numbers as they are, DATE as `YYYY-MM-DD`,
//! DECIMAL as its plain string, TIMESTAMP as an ISO local date-time without trailing fractional
//! zeros, BINARY/VARBINARY as base64. Also orders rows by primary key as the Java runner does.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray,
    TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray,
    TimestampSecondArray,
};
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

/// The Arrow array of `arrow_type` holding `values` (JSON values in the forms `read` renders, as
/// the Java runner's write takes them; null for a missing field): the inverse of `value`. With
/// `string_bytes` a string field's values are base64 of its bytes. A value that does not fit the
/// type is an error, never a default.
pub fn array_of(
    arrow_type: &DataType,
    values: &[&Value],
    string_bytes: bool,
) -> Result<ArrayRef, String> {
    fn each<T>(
        values: &[&Value],
        f: impl Fn(&Value) -> Result<T, String>,
    ) -> Result<Vec<Option<T>>, String> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Null => Ok(None),
                v => f(v).map(Some).map_err(|e| format!("row {i}: {e}")),
            })
            .collect()
    }
    fn int<T: TryFrom<i64>>(v: &Value) -> Result<T, String> {
        let n = v.as_i64().ok_or_else(|| format!("{v} is not an integer"))?;
        T::try_from(n).map_err(|_| format!("{n} is out of the type's range"))
    }
    let array: ArrayRef = match arrow_type {
        DataType::Boolean => Arc::new(BooleanArray::from(each(values, |v| {
            v.as_bool().ok_or_else(|| format!("{v} is not a boolean"))
        })?)),
        DataType::Int8 => Arc::new(Int8Array::from(each(values, int::<i8>)?)),
        DataType::Int16 => Arc::new(Int16Array::from(each(values, int::<i16>)?)),
        DataType::Int32 => Arc::new(Int32Array::from(each(values, int::<i32>)?)),
        DataType::Int64 => Arc::new(Int64Array::from(each(values, int::<i64>)?)),
        DataType::Float32 => Arc::new(Float32Array::from(each(values, |v| {
            // The float the JSON number's shortest decimal denotes, not a double narrowed twice.
            match v {
                Value::Number(n) => n
                    .to_string()
                    .parse::<f32>()
                    .map_err(|e| format!("{v}: {e}")),
                _ => special_float(v).map(|f| f as f32),
            }
        })?)),
        DataType::Float64 => Arc::new(Float64Array::from(each(values, |v| match v {
            Value::Number(n) => n.as_f64().ok_or_else(|| format!("{v} is not a number")),
            _ => special_float(v),
        })?)),
        DataType::Utf8 => {
            let texts = each(values, |v| {
                let s = v.as_str().ok_or_else(|| format!("{v} is not a string"))?;
                if !string_bytes {
                    return Ok(s.to_string());
                }
                String::from_utf8(unbase64(s)?).map_err(|_| {
                    "the bytes are not UTF-8: paimon-rust 0.4.0 writes strings from Arrow Utf8 \
                     arrays (paimon/src/arrow/mod.rs, paimon_type_to_arrow), which hold valid \
                     UTF-8 only"
                        .to_string()
                })
            })?;
            Arc::new(StringArray::from(texts))
        }
        DataType::Binary => {
            let bytes = each(values, |v| {
                unbase64(
                    v.as_str()
                        .ok_or_else(|| format!("{v} is not base64 text"))?,
                )
            })?;
            Arc::new(BinaryArray::from(
                bytes.iter().map(|b| b.as_deref()).collect::<Vec<_>>(),
            ))
        }
        DataType::Date32 => Arc::new(Date32Array::from(each(values, |v| {
            let s = v.as_str().ok_or_else(|| format!("{v} is not a date"))?;
            let days = parse_date(s)?;
            i32::try_from(days).map_err(|_| format!("date {s} is out of range"))
        })?)),
        DataType::Decimal128(precision, scale) => {
            let unscaled = each(values, |v| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => return Err(format!("{v} is not a decimal")),
                };
                parse_decimal(&text, *precision, *scale)
            })?;
            Arc::new(
                Decimal128Array::from(unscaled)
                    .with_precision_and_scale(*precision, *scale)
                    .map_err(|e| e.to_string())?,
            )
        }
        DataType::Timestamp(unit, tz) => {
            let per_second: i64 = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            let v = each(values, |v| {
                parse_timestamp(
                    v.as_str()
                        .ok_or_else(|| format!("{v} is not a timestamp"))?,
                    per_second,
                )
            })?;
            let array: ArrayRef = match unit {
                TimeUnit::Second => {
                    Arc::new(TimestampSecondArray::from(v).with_timezone_opt(tz.clone()))
                }
                TimeUnit::Millisecond => {
                    Arc::new(TimestampMillisecondArray::from(v).with_timezone_opt(tz.clone()))
                }
                TimeUnit::Microsecond => {
                    Arc::new(TimestampMicrosecondArray::from(v).with_timezone_opt(tz.clone()))
                }
                TimeUnit::Nanosecond => {
                    Arc::new(TimestampNanosecondArray::from(v).with_timezone_opt(tz.clone()))
                }
            };
            array
        }
        other => {
            return Err(format!(
                "values of Arrow type {other} are not written by this runner"
            ))
        }
    };
    Ok(array)
}

/// The non-finite floats, as the runners render them.
fn special_float(v: &Value) -> Result<f64, String> {
    match v.as_str() {
        Some("NaN") => Ok(f64::NAN),
        Some("Infinity") => Ok(f64::INFINITY),
        Some("-Infinity") => Ok(f64::NEG_INFINITY),
        _ => Err(format!("{v} is not a number")),
    }
}

/// The bytes of standard base64 text (padding required).
fn unbase64(s: &str) -> Result<Vec<u8>, String> {
    let bytes = s.as_bytes();
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{s:?} is not base64: its length is not a multiple of 4"
        ));
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (ci, chunk) in bytes.chunks(4).enumerate() {
        let last = ci == bytes.len() / 4 - 1;
        let mut n: u32 = 0;
        let mut pad = 0;
        for (i, &c) in chunk.iter().enumerate() {
            let d = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' if last && i >= 2 => {
                    pad += 1;
                    0
                }
                _ => return Err(format!("{s:?} is not base64")),
            };
            if pad > 0 && c != b'=' {
                return Err(format!("{s:?} is not base64"));
            }
            n = (n << 6) | u32::from(d);
        }
        let b = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&b[..3 - pad]);
    }
    Ok(out)
}

/// Days after 1970-01-01 of a proleptic Gregorian `YYYY-MM-DD` (a sign and more digits outside
/// 0000-9999, as Java's LocalDate prints them).
fn parse_date(s: &str) -> Result<i64, String> {
    let bad = || format!("{s:?} is not a date YYYY-MM-DD");
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'-') => (-1, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let mut parts = rest.splitn(3, '-');
    let (y, m, d) = (
        parts.next().ok_or_else(bad)?,
        parts.next().ok_or_else(bad)?,
        parts.next().ok_or_else(bad)?,
    );
    if y.len() < 4 || m.len() != 2 || d.len() != 2 {
        return Err(bad());
    }
    let digits = |t: &str| -> Result<i64, String> {
        if t.bytes().all(|b| b.is_ascii_digit()) {
            t.parse::<i64>().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let (y, m, d) = (sign * digits(y)?, digits(m)?, digits(d)?);
    let leap = y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > month_days[(m - 1) as usize] {
        return Err(bad());
    }
    Ok(days_from_civil(y, m, d))
}

/// Howard Hinnant's civil-to-days algorithm (the inverse of civil_from_days).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Units of 1/per_second seconds after the epoch of an ISO local date-time
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]`; a fraction finer than the unit is an error.
fn parse_timestamp(s: &str, per_second: i64) -> Result<i64, String> {
    let bad = || format!("{s:?} is not a timestamp YYYY-MM-DDTHH:MM:SS[.fraction]");
    let (date, time) = s.split_once(['T', ' ']).ok_or_else(bad)?;
    let days = parse_date(date)?;
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let parts: Vec<&str> = hms.split(':').collect();
    if !(2..=3).contains(&parts.len())
        || parts
            .iter()
            .any(|p| p.len() != 2 || !p.bytes().all(|b| b.is_ascii_digit()))
        || frac.len() > 9
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let n = |p: &str| p.parse::<i64>().map_err(|_| bad());
    let (h, mi, sec) = (
        n(parts[0])?,
        n(parts[1])?,
        parts.get(2).map_or(Ok(0), |p| n(*p))?,
    );
    if h > 23 || mi > 59 || sec > 59 {
        return Err(bad());
    }
    let nanos = if frac.is_empty() {
        0
    } else {
        n(&format!("{frac:0<9}"))?
    };
    let per_unit = 1_000_000_000 / per_second;
    if nanos % per_unit != 0 {
        return Err(format!(
            "{s:?} has a finer fraction than the column's precision"
        ));
    }
    let seconds = days * 86_400 + h * 3600 + mi * 60 + sec;
    seconds
        .checked_mul(per_second)
        .and_then(|v| v.checked_add(nanos / per_unit))
        .ok_or_else(|| format!("{s:?} is out of the column's range"))
}

/// The unscaled value of a plain decimal string at `scale`; digits beyond the scale or the
/// precision are an error, not a rounding.
fn parse_decimal(s: &str, precision: u8, scale: i8) -> Result<i128, String> {
    let bad = || format!("{s:?} is not a plain decimal");
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let scale = usize::try_from(scale)
        .map_err(|_| "negative decimal scales are not written".to_string())?;
    let frac_trimmed = frac.trim_end_matches('0');
    if frac_trimmed.len() > scale {
        return Err(format!("{s:?} has more than {scale} fractional digits"));
    }
    let text = format!("{int}{frac_trimmed:0<scale$}");
    let significant = text.trim_start_matches('0');
    if significant.len() > usize::from(precision) {
        return Err(format!("{s:?} has more than {precision} digits"));
    }
    let v = if significant.is_empty() {
        0
    } else {
        significant.parse::<i128>().map_err(|_| bad())?
    };
    Ok(if negative { -v } else { v })
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

    #[test]
    fn written_values_read_back() {
        assert_eq!(unbase64("//79AA==").unwrap(), vec![0xff, 0xfe, 0xfd, 0x00]);
        assert_eq!(unbase64("Zm9v").unwrap(), b"foo");
        assert!(unbase64("Zm9").is_err());
        assert!(unbase64("Z=9v").is_err());
        for days in [-719_528, -1, 0, 19_753, 19_782, 2_932_897] {
            assert_eq!(parse_date(&civil_date(days)).unwrap(), days);
        }
        assert!(parse_date("2024-02-30").is_err());
        for (v, per) in [
            (1_500, 1_000),
            (-1, 1_000_000),
            (1_706_659_200_123_456_789, 1_000_000_000),
        ] {
            assert_eq!(parse_timestamp(&timestamp(v, per), per).unwrap(), v);
        }
        assert!(parse_timestamp("1970-01-01T00:00:00.0001", 1_000).is_err());
        assert_eq!(parse_decimal("123.45", 10, 2).unwrap(), 12_345);
        assert_eq!(parse_decimal("-0.005", 10, 3).unwrap(), -5);
        assert_eq!(parse_decimal("7", 10, 2).unwrap(), 700);
        assert!(parse_decimal("1.234", 10, 2).is_err());
        assert!(parse_decimal("123456789", 5, 0).is_err());
        let a = array_of(&DataType::Int32, &[&Value::from(7), &Value::Null], false).unwrap();
        assert_eq!(value(a.as_ref(), 0).unwrap(), Value::from(7));
        assert!(a.is_null(1));
        assert!(array_of(&DataType::Int8, &[&Value::from(300)], false).is_err());
        assert!(array_of(&DataType::Utf8, &[&Value::from("/w==")], true).is_err());
    }
}
