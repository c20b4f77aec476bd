package types

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// ParseSQLString parses an atomic type string as stored in schema JSON ("INT NOT NULL",
// "DECIMAL(10, 2)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "INT ARRAY", ...), accepting the same
// grammar as Java's DataTypeJsonParser#parseAtomicTypeSQLString: case-insensitive keywords,
// synonyms (INTEGER, DEC, NUMERIC, DOUBLE PRECISION, TIMESTAMP_LTZ, ...), optional NULL / NOT NULL
// and suffix ARRAY / MULTISET notation.
func ParseSQLString(s string) (DataType, error) {
	toks := tokenize(s)
	p := &sqlParser{input: s, toks: toks, cur: -1}
	t, err := p.parseTypeWithNullability()
	if err == nil && p.cur+1 < len(p.toks) {
		p.cur++
		err = p.errorf("unexpected token: %s", p.toks[p.cur].val)
	}
	if err != nil {
		return DataType{}, err
	}
	if err := t.Validate(); err != nil {
		return DataType{}, fmt.Errorf("parse type %q: %w", s, err)
	}
	return t, nil
}

type tokKind int

const (
	tokBeginSubtype tokKind = iota
	tokEndSubtype
	tokBeginParam
	tokEndParam
	tokListSep
	tokString
	tokInt
	tokKeyword
	tokIdent
	tokIdentSep
)

var tokKindNames = [...]string{
	"BEGIN_SUBTYPE", "END_SUBTYPE", "BEGIN_PARAMETER", "END_PARAMETER", "LIST_SEPARATOR",
	"LITERAL_STRING", "LITERAL_INT", "KEYWORD", "IDENTIFIER", "IDENTIFIER_SEPARATOR",
}

type token struct {
	kind tokKind
	pos  int
	val  string
}

// keywords are the reserved words of the type grammar; they are matched case-insensitively.
var keywords = map[string]bool{
	"CHAR": true, "VARCHAR": true, "STRING": true, "BOOLEAN": true, "BINARY": true,
	"VARBINARY": true, "BYTES": true, "DECIMAL": true, "NUMERIC": true, "DEC": true,
	"TINYINT": true, "SMALLINT": true, "INT": true, "INTEGER": true, "BIGINT": true,
	"FLOAT": true, "DOUBLE": true, "PRECISION": true, "DATE": true, "TIME": true, "WITH": true,
	"WITHOUT": true, "LOCAL": true, "ZONE": true, "TIMESTAMP": true, "TIMESTAMP_LTZ": true,
	"INTERVAL": true, "YEAR": true, "MONTH": true, "DAY": true, "HOUR": true, "MINUTE": true,
	"SECOND": true, "TO": true, "ARRAY": true, "VECTOR": true, "MULTISET": true, "MAP": true,
	"ROW": true, "NULL": true, "RAW": true, "LEGACY": true, "VARIANT": true, "BLOB": true,
	"NOT": true,
}

// isJavaWhitespace approximates Character.isWhitespace: Unicode spaces except the no-break ones,
// plus the ASCII separators U+001C..U+001F.
func isJavaWhitespace(r rune) bool {
	if r >= 0x1c && r <= 0x1f {
		return true
	}
	if r == 0xa0 || r == 0x2007 || r == 0x202f {
		return false
	}
	return unicode.IsSpace(r)
}

func isDelimiter(r rune) bool {
	return isJavaWhitespace(r) || strings.ContainsRune("<>(),.", r)
}

func tokenize(s string) []token {
	rs := []rune(s)
	var toks []token
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '<':
			toks = append(toks, token{tokBeginSubtype, i, "<"})
		case '>':
			toks = append(toks, token{tokEndSubtype, i, ">"})
		case '(':
			toks = append(toks, token{tokBeginParam, i, "("})
		case ')':
			toks = append(toks, token{tokEndParam, i, ")"})
		case ',':
			toks = append(toks, token{tokListSep, i, ","})
		case '.':
			toks = append(toks, token{tokIdentSep, i, "."})
		case '\'', '`':
			var b strings.Builder
			i++
			for ; i < len(rs); i++ {
				if rs[i] == c && i+1 < len(rs) && rs[i+1] == c {
					i++
					b.WriteRune(c)
				} else if rs[i] == c {
					break
				} else {
					b.WriteRune(rs[i])
				}
			}
			kind := tokString
			if c == '`' {
				kind = tokIdent
			}
			toks = append(toks, token{kind, i, b.String()})
		default:
			if isJavaWhitespace(c) {
				continue
			}
			start := i
			if c >= '0' && c <= '9' {
				for i < len(rs) && rs[i] >= '0' && rs[i] <= '9' {
					i++
				}
				i--
				toks = append(toks, token{tokInt, i, string(rs[start : i+1])})
				continue
			}
			for i < len(rs) && !isDelimiter(rs[i]) {
				i++
			}
			i--
			word := string(rs[start : i+1])
			if up := strings.ToUpper(word); keywords[up] {
				toks = append(toks, token{tokKeyword, i, up})
			} else {
				toks = append(toks, token{tokIdent, i, word})
			}
		}
	}
	return toks
}

type sqlParser struct {
	input string
	toks  []token
	cur   int
}

func (p *sqlParser) errorf(format string, args ...any) error {
	pos := 0
	if p.cur > 0 && p.cur-1 < len(p.toks) {
		pos = p.toks[p.cur-1].pos + 1
	}
	return fmt.Errorf("could not parse type at position %d: %s; input type string: %s",
		pos, fmt.Sprintf(format, args...), p.input)
}

func (p *sqlParser) next() error {
	p.cur++
	if p.cur >= len(p.toks) {
		return p.errorf("unexpected end")
	}
	return nil
}

func (p *sqlParser) nextKind(k tokKind) error {
	if err := p.next(); err != nil {
		return err
	}
	if got := p.toks[p.cur].kind; got != k {
		return p.errorf("<%s> expected but was <%s>", tokKindNames[k], tokKindNames[got])
	}
	return nil
}

func (p *sqlParser) nextKeyword(kw string) error {
	if err := p.nextKind(tokKeyword); err != nil {
		return err
	}
	if got := p.toks[p.cur].val; got != kw {
		return p.errorf("keyword '%s' expected but was '%s'", kw, got)
	}
	return nil
}

func (p *sqlParser) hasNextKind(k tokKind) bool {
	return p.cur+1 < len(p.toks) && p.toks[p.cur+1].kind == k
}

func (p *sqlParser) hasNextKeywords(kws ...string) bool {
	if p.cur+len(kws)+1 > len(p.toks) {
		return false
	}
	for i, kw := range kws {
		t := p.toks[p.cur+i+1]
		if t.kind != tokKeyword || t.val != kw {
			return false
		}
	}
	return true
}

func (p *sqlParser) intValue() (int, error) {
	v, err := strconv.ParseInt(p.toks[p.cur].val, 10, 32)
	if err != nil {
		return 0, p.errorf("invalid integer value %s", p.toks[p.cur].val)
	}
	return int(v), nil
}

// parseNullability consumes an optional NULL or NOT NULL and reports the nullability.
func (p *sqlParser) parseNullability() (bool, error) {
	if p.hasNextKeywords("NOT", "NULL") {
		p.cur += 2
		return false, nil
	}
	if p.hasNextKeywords("NULL") {
		p.cur++
	}
	return true, nil
}

func (p *sqlParser) parseTypeWithNullability() (DataType, error) {
	t, err := p.parseTypeByKeyword()
	if err != nil {
		return DataType{}, err
	}
	nullable, _ := p.parseNullability()
	t = t.WithNullable(nullable)
	for _, kw := range []string{"ARRAY", "MULTISET"} {
		if p.hasNextKeywords(kw) {
			p.cur++
			outer := Array(t)
			if kw == "MULTISET" {
				outer = Multiset(t)
			}
			nullable, _ := p.parseNullability()
			return outer.WithNullable(nullable), nil
		}
	}
	return t, nil
}

func (p *sqlParser) parseTypeByKeyword() (DataType, error) {
	if err := p.nextKind(tokKeyword); err != nil {
		return DataType{}, err
	}
	switch kw := p.toks[p.cur].val; kw {
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		n, err := p.parseOptionalParam(DefaultLength)
		if err != nil {
			return DataType{}, err
		}
		return map[string]func(int) DataType{
			"CHAR": Char, "VARCHAR": VarChar, "BINARY": Binary, "VARBINARY": VarBinary,
		}[kw](n), nil
	case "STRING":
		return String(), nil
	case "BYTES":
		return Bytes(), nil
	case "BOOLEAN":
		return Boolean(), nil
	case "DECIMAL", "NUMERIC", "DEC":
		return p.parseDecimal()
	case "TINYINT":
		return TinyInt(), nil
	case "SMALLINT":
		return SmallInt(), nil
	case "INT", "INTEGER":
		return Int(), nil
	case "BIGINT":
		return BigInt(), nil
	case "FLOAT":
		return Float(), nil
	case "DOUBLE":
		if p.hasNextKeywords("PRECISION") {
			p.cur++
		}
		return Double(), nil
	case "DATE":
		return Date(), nil
	case "TIME":
		prec, err := p.parseOptionalParam(DefaultTimePrecision)
		if err != nil {
			return DataType{}, err
		}
		if p.hasNextKeywords("WITHOUT") {
			if err := p.expectKeywords("WITHOUT", "TIME", "ZONE"); err != nil {
				return DataType{}, err
			}
		}
		return Time(prec), nil
	case "TIMESTAMP":
		prec, err := p.parseOptionalParam(DefaultTimestampPrecision)
		if err != nil {
			return DataType{}, err
		}
		if p.hasNextKeywords("WITHOUT") {
			if err := p.expectKeywords("WITHOUT", "TIME", "ZONE"); err != nil {
				return DataType{}, err
			}
		} else if p.hasNextKeywords("WITH") {
			p.cur++
			if p.hasNextKeywords("LOCAL") {
				if err := p.expectKeywords("LOCAL", "TIME", "ZONE"); err != nil {
					return DataType{}, err
				}
				return TimestampLTZ(prec), nil
			}
		}
		return Timestamp(prec), nil
	case "TIMESTAMP_LTZ":
		prec, err := p.parseOptionalParam(DefaultTimestampPrecision)
		if err != nil {
			return DataType{}, err
		}
		return TimestampLTZ(prec), nil
	case "VARIANT":
		return Variant(), nil
	case "BLOB":
		return Blob(), nil
	case "VECTOR":
		if err := p.nextKind(tokBeginSubtype); err != nil {
			return DataType{}, err
		}
		elem, err := p.parseTypeWithNullability()
		if err != nil {
			return DataType{}, err
		}
		if err := p.nextKind(tokListSep); err != nil {
			return DataType{}, err
		}
		if err := p.nextKind(tokInt); err != nil {
			return DataType{}, err
		}
		n, err := p.intValue()
		if err != nil {
			return DataType{}, err
		}
		if err := p.nextKind(tokEndSubtype); err != nil {
			return DataType{}, err
		}
		return Vector(n, elem), nil
	default:
		return DataType{}, p.errorf("unsupported type: %s", kw)
	}
}

func (p *sqlParser) expectKeywords(kws ...string) error {
	for _, kw := range kws {
		if err := p.nextKeyword(kw); err != nil {
			return err
		}
	}
	return nil
}

// parseOptionalParam reads "(n)" when present, otherwise returns def.
func (p *sqlParser) parseOptionalParam(def int) (int, error) {
	if !p.hasNextKind(tokBeginParam) {
		return def, nil
	}
	p.cur++
	if err := p.nextKind(tokInt); err != nil {
		return 0, err
	}
	n, err := p.intValue()
	if err != nil {
		return 0, err
	}
	if err := p.nextKind(tokEndParam); err != nil {
		return 0, err
	}
	return n, nil
}

func (p *sqlParser) parseDecimal() (DataType, error) {
	prec, scale := DefaultDecimalPrecision, DefaultDecimalScale
	if p.hasNextKind(tokBeginParam) {
		p.cur++
		if err := p.nextKind(tokInt); err != nil {
			return DataType{}, err
		}
		var err error
		if prec, err = p.intValue(); err != nil {
			return DataType{}, err
		}
		if p.hasNextKind(tokListSep) {
			p.cur++
			if err := p.nextKind(tokInt); err != nil {
				return DataType{}, err
			}
			if scale, err = p.intValue(); err != nil {
				return DataType{}, err
			}
		}
		if err := p.nextKind(tokEndParam); err != nil {
			return DataType{}, err
		}
	}
	return Decimal(prec, scale), nil
}
