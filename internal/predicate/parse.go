package predicate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Parse reads a predicate in SQL syntax over fields:
//
//	expr    := and { OR and }
//	and     := primary { AND primary }
//	primary := ( expr ) | col IS [NOT] NULL | col [NOT] IN ( lit {, lit} ) | col op lit
//	op      := = | <> | != | < | <= | > | >=
//
// Keywords are case-insensitive; a column is a name or a "double-quoted" / `back-quoted` name.
// Literals are numbers, 'strings' (” inside is one quote) and TRUE / FALSE, typed by the column:
// integers and floating-point numbers for numeric columns (a decimal at most the column's scale
// and precision), strings for CHAR/VARCHAR, 'YYYY-MM-DD' for DATE, 'HH:MM:SS[.fff]' for TIME and
// 'YYYY-MM-DD HH:MM:SS[.fffffffff]' (or with T) for TIMESTAMP and TIMESTAMP_LTZ (read as UTC).
// NULL literals, NOT, BETWEEN, LIKE, functions and binary columns are refused with an error that
// names them.
func Parse(expr string, fields []types.DataField) (*Predicate, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, fields: fields}
	if p.peek().kind == tEOF {
		return nil, fmt.Errorf("empty predicate")
	}
	out, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, fmt.Errorf("unexpected %s at offset %d", t, t.pos)
	}
	return out, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tQuotedIdent
	tNumber
	tString
	tOp
	tLParen
	tRParen
	tComma
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return fmt.Sprintf("string '%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func (t token) keyword(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

func lex(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			out = append(out, token{tLParen, "(", i})
			i++
		case c == ')':
			out = append(out, token{tRParen, ")", i})
			i++
		case c == ',':
			out = append(out, token{tComma, ",", i})
			i++
		case c == '=':
			out = append(out, token{tOp, "=", i})
			i++
		case c == '<' || c == '>' || c == '!':
			op := string(c)
			if i+1 < len(s) && (s[i+1] == '=' || (c == '<' && s[i+1] == '>')) {
				op += string(s[i+1])
			}
			if op == "!" {
				return nil, fmt.Errorf("unexpected '!' at offset %d (NOT is not supported; use <> or IS NOT NULL)", i)
			}
			out = append(out, token{tOp, op, i})
			i += len(op)
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, fmt.Errorf("unterminated string starting at offset %d", i)
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			out = append(out, token{tString, b.String(), i})
			i = j + 1
		case c == '"' || c == '`':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unterminated quoted column name starting at offset %d", i)
			}
			out = append(out, token{tQuotedIdent, s[i+1 : i+1+end], i})
			i += end + 2
		case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(s) && (isDigit(s[j]) || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				((s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E'))) {
				j++
			}
			out = append(out, token{tNumber, s[i:j], i})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)) || c >= 0x80:
			j := i
			for j < len(s) && (s[j] == '_' || isDigit(s[j]) || unicode.IsLetter(rune(s[j])) || s[j] >= 0x80) {
				j++
			}
			out = append(out, token{tIdent, s[i:j], i})
			i = j
		default:
			return nil, fmt.Errorf("unexpected character %q at offset %d", c, i)
		}
	}
	return append(out, token{kind: tEOF, pos: len(s)}), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

type parser struct {
	toks   []token
	i      int
	fields []types.DataField
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) expect(kind tokKind, what string) (token, error) {
	t := p.next()
	if t.kind != kind {
		return t, fmt.Errorf("expected %s at offset %d, found %s", what, t.pos, t)
	}
	return t, nil
}

func (p *parser) or() (*Predicate, error) {
	first, err := p.and()
	if err != nil {
		return nil, err
	}
	children := []*Predicate{first}
	for p.peek().keyword("OR") {
		p.next()
		c, err := p.and()
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	}
	return NewOr(children...), nil
}

func (p *parser) and() (*Predicate, error) {
	first, err := p.primary()
	if err != nil {
		return nil, err
	}
	children := []*Predicate{first}
	for p.peek().keyword("AND") {
		p.next()
		c, err := p.primary()
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	}
	return NewAnd(children...), nil
}

func (p *parser) primary() (*Predicate, error) {
	t := p.next()
	switch {
	case t.kind == tLParen:
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tRParen, "')'"); err != nil {
			return nil, err
		}
		return e, nil
	case t.keyword("NOT"):
		return nil, fmt.Errorf("NOT at offset %d is not supported (use <>, NOT IN or IS NOT NULL)", t.pos)
	case t.kind != tIdent && t.kind != tQuotedIdent:
		return nil, fmt.Errorf("expected a column name at offset %d, found %s", t.pos, t)
	}
	col := t.text
	if t.kind == tIdent && p.peek().kind == tLParen {
		return nil, fmt.Errorf("function call %s(...) at offset %d is not supported", col, t.pos)
	}
	var field *types.DataField
	for i := range p.fields {
		if p.fields[i].Name == col {
			field = &p.fields[i]
		}
	}
	if field == nil {
		return nil, fmt.Errorf("column %s (offset %d) is not a column of the table", col, t.pos)
	}
	op := p.next()
	switch {
	case op.keyword("IS"):
		not := false
		if p.peek().keyword("NOT") {
			p.next()
			not = true
		}
		if n := p.next(); !n.keyword("NULL") {
			return nil, fmt.Errorf("expected NULL at offset %d, found %s", n.pos, n)
		}
		if not {
			return NewLeaf(p.fields, col, pred.IsNotNull)
		}
		return NewLeaf(p.fields, col, pred.IsNull)
	case op.keyword("IN") || op.keyword("NOT"):
		fn := pred.In
		if op.keyword("NOT") {
			if n := p.next(); !n.keyword("IN") {
				return nil, fmt.Errorf("expected IN after NOT at offset %d, found %s", n.pos, n)
			}
			fn = pred.NotIn
		}
		if _, err := p.expect(tLParen, "'(' after IN"); err != nil {
			return nil, err
		}
		var lits []any
		for {
			v, err := p.literal(*field)
			if err != nil {
				return nil, err
			}
			lits = append(lits, v)
			n := p.next()
			if n.kind == tRParen {
				break
			}
			if n.kind != tComma {
				return nil, fmt.Errorf("expected ',' or ')' in the IN list at offset %d, found %s", n.pos, n)
			}
		}
		return NewLeaf(p.fields, col, fn, lits...)
	case op.kind == tOp:
		fn, ok := map[string]pred.Op{"=": pred.Equal, "<>": pred.NotEqual, "!=": pred.NotEqual,
			"<": pred.LessThan, "<=": pred.LessOrEqual, ">": pred.GreaterThan, ">=": pred.GreaterOrEqual}[op.text]
		if !ok {
			return nil, fmt.Errorf("unknown operator %s at offset %d", op, op.pos)
		}
		v, err := p.literal(*field)
		if err != nil {
			return nil, err
		}
		return NewLeaf(p.fields, col, fn, v)
	case op.keyword("BETWEEN") || op.keyword("LIKE"):
		return nil, fmt.Errorf("%s at offset %d is not supported (use comparisons joined by AND)", strings.ToUpper(op.text), op.pos)
	}
	return nil, fmt.Errorf("expected an operator after column %s at offset %d, found %s", col, op.pos, op)
}

// literal reads one literal and converts it to field's type.
func (p *parser) literal(field types.DataField) (any, error) {
	t := p.next()
	if t.keyword("NULL") {
		return nil, fmt.Errorf("NULL literal at offset %d: comparisons with NULL select nothing; use IS NULL or IS NOT NULL", t.pos)
	}
	v, err := convertLiteral(field.Type, t)
	if err != nil {
		return nil, fmt.Errorf("literal %s at offset %d for column %s: %w", t, t.pos, field.Name, err)
	}
	return v, nil
}

func convertLiteral(typ types.DataType, t token) (any, error) {
	needNumber := func() error {
		if t.kind != tNumber {
			return fmt.Errorf("a %s column takes a number", typ.SQLString())
		}
		return nil
	}
	needString := func(form string) error {
		if t.kind != tString {
			return fmt.Errorf("a %s column takes a quoted %s", typ.SQLString(), form)
		}
		return nil
	}
	switch typ.Root {
	case types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootBigInt:
		if err := needNumber(); err != nil {
			return nil, err
		}
		bits := map[types.Root]int{types.RootTinyInt: 8, types.RootSmallInt: 16, types.RootInt: 32, types.RootBigInt: 64}[typ.Root]
		n, err := strconv.ParseInt(t.text, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("not an integer in the range of %s", typ.SQLString())
		}
		switch typ.Root {
		case types.RootTinyInt:
			return int8(n), nil
		case types.RootSmallInt:
			return int16(n), nil
		case types.RootInt:
			return int32(n), nil
		}
		return n, nil
	case types.RootFloat, types.RootDouble:
		if err := needNumber(); err != nil {
			return nil, err
		}
		bits := 64
		if typ.Root == types.RootFloat {
			bits = 32
		}
		f, err := strconv.ParseFloat(t.text, bits)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("not a finite number of type %s", typ.SQLString())
		}
		if bits == 32 {
			return float32(f), nil
		}
		return f, nil
	case types.RootDecimal:
		if err := needNumber(); err != nil {
			return nil, err
		}
		if strings.ContainsAny(t.text, "eE") {
			return nil, fmt.Errorf("a DECIMAL literal is written in plain notation")
		}
		d, err := binrow.ParseDecimal(t.text, typ.Scale)
		if err != nil {
			return nil, fmt.Errorf("not a decimal with at most %d fraction digits: %w", typ.Scale, err)
		}
		if len(d.Unscaled.String())-boolInt(d.Unscaled.Sign() < 0) > typ.Precision {
			return nil, fmt.Errorf("more digits than the column's precision %d", typ.Precision)
		}
		return d, nil
	case types.RootBoolean:
		switch {
		case t.keyword("TRUE"):
			return true, nil
		case t.keyword("FALSE"):
			return false, nil
		}
		return nil, fmt.Errorf("a BOOLEAN column takes TRUE or FALSE")
	case types.RootChar, types.RootVarChar:
		if err := needString("string"); err != nil {
			return nil, err
		}
		return t.text, nil
	case types.RootDate:
		if err := needString("date 'YYYY-MM-DD'"); err != nil {
			return nil, err
		}
		d, err := time.Parse("2006-01-02", t.text)
		if err != nil {
			return nil, fmt.Errorf("not a date 'YYYY-MM-DD'")
		}
		return int32(floorDiv(d.Unix(), 86400)), nil
	case types.RootTime:
		if err := needString("time 'HH:MM:SS[.fff]'"); err != nil {
			return nil, err
		}
		d, err := time.Parse("15:04:05.999999999", t.text)
		if err != nil {
			return nil, fmt.Errorf("not a time 'HH:MM:SS[.fff]'")
		}
		return int32(d.Hour()*3_600_000 + d.Minute()*60_000 + d.Second()*1000 + d.Nanosecond()/1_000_000), nil
	case types.RootTimestamp, types.RootTimestampLTZ:
		if err := needString("timestamp 'YYYY-MM-DD HH:MM:SS[.fffffffff]'"); err != nil {
			return nil, err
		}
		d, err := time.Parse("2006-01-02 15:04:05.999999999", strings.Replace(t.text, "T", " ", 1))
		if err != nil {
			return nil, fmt.Errorf("not a timestamp 'YYYY-MM-DD HH:MM:SS[.fffffffff]'")
		}
		ns := d.UnixNano()
		if d.Year() < 1678 || d.Year() > 2261 {
			return nil, fmt.Errorf("timestamp out of the supported years 1678-2261")
		}
		millis := floorDiv(ns, 1_000_000)
		return binrow.Timestamp{Millis: millis, NanoOfMilli: int32(ns - millis*1_000_000)}, nil
	}
	return nil, fmt.Errorf("columns of type %s take no literals here: %w", typ.SQLString(), ErrUnsupported)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

var keywords = []string{"AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE", "BETWEEN", "LIKE"}

// quoteName renders a column name as Parse reads it: plain when it is an identifier that is no
// keyword, otherwise in double quotes (back quotes when it holds a double quote).
func quoteName(n string) string {
	plain := n != ""
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)) || (i > 0 && isDigit(c))) {
			plain = false
		}
	}
	for _, k := range keywords {
		if strings.EqualFold(n, k) {
			plain = false
		}
	}
	switch {
	case plain:
		return n
	case strings.Contains(n, `"`):
		return "`" + n + "`"
	}
	return `"` + n + `"`
}

// FormatLiteral renders v, a value of t, as Parse reads it back.
func FormatLiteral(t types.DataType, v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case bool:
		if x {
			return "TRUE"
		}
		return "FALSE"
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case binrow.Decimal:
		return x.String()
	case binrow.Timestamp:
		ts := time.UnixMilli(x.Millis).UTC().Add(time.Duration(x.NanoOfMilli))
		return "'" + ts.Format("2006-01-02 15:04:05.999999999") + "'"
	case int32:
		switch t.Root {
		case types.RootDate:
			return "'" + time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02") + "'"
		case types.RootTime:
			d := time.UnixMilli(int64(x)).UTC()
			return "'" + d.Format("15:04:05.999") + "'"
		}
	}
	return fmt.Sprint(v)
}
