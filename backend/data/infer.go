package data

import (
	"strconv"
	"strings"
	"time"
)

// inferrer narrows one column's type as values arrive; see the package doc
// for the rules.
type inferrer struct {
	seen                              bool // a non-empty value arrived
	notInt, notReal, notBool, notDate bool
}

func (f *inferrer) add(v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	f.seen = true
	if f.notInt && f.notReal && f.notBool && f.notDate {
		return
	}
	if !f.notInt && !isInt(v) {
		f.notInt = true
	}
	if !f.notReal && !isReal(v) {
		f.notReal = true
	}
	if !f.notBool && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		f.notBool = true
	}
	if !f.notDate && !isDate(v) {
		f.notDate = true
	}
}

func (f *inferrer) typ() string {
	switch {
	case !f.seen:
		return TypeText
	case !f.notInt:
		return TypeInteger
	case !f.notReal:
		return TypeReal
	case !f.notBool:
		return TypeBoolean
	case !f.notDate:
		return TypeDate
	}
	return TypeText
}

// convert turns a cell into the value stored for a column of type typ,
// which inference chose over every value, so parsing cannot fail.
func convert(v, typ string) any {
	t := strings.TrimSpace(v)
	if t == "" {
		return nil
	}
	switch typ {
	case TypeInteger:
		n, _ := strconv.ParseInt(t, 10, 64)
		return n
	case TypeReal:
		f, _ := strconv.ParseFloat(t, 64)
		return f
	case TypeBoolean:
		if strings.EqualFold(t, "true") {
			return int64(1)
		}
		return int64(0)
	case TypeDate:
		return t
	}
	return v
}

// isInt reports whether s is a base-10 int64 without a leading zero.
func isInt(s string) bool {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || !allDigits(digits) || leadingZero(digits) {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// isReal reports whether s is a finite decimal number: digits with an
// optional point and exponent. Hex, underscores, Inf and NaN, which
// strconv accepts, are text here; so is an integer too large for int64
// (an identifier, not a quantity) and a leading zero.
func isReal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	frac := false
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = i > fs
	}
	if intPart == "" && !frac {
		return false
	}
	if leadingZero(intPart) {
		return false
	}
	mantissaEnd := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == es {
			return false
		}
	}
	if i != len(s) {
		return false
	}
	if mantissaEnd == len(s) && !strings.Contains(s, ".") && !isInt(s) {
		return false // digits only, beyond int64
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// dateLayouts are the ISO 8601 forms a DATE column may hold. time.Parse
// accepts fractional seconds after the seconds field of any of them.
var dateLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
}

func isDate(s string) bool {
	if len(s) < 10 || !isDigit(s[0]) || s[4] != '-' {
		return false
	}
	if len(s) == 10 {
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	}
	for _, l := range dateLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

func leadingZero(digits string) bool { return len(digits) > 1 && digits[0] == '0' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
