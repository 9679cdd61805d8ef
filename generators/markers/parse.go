package markers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Position is a source position; File is whatever the caller passes
// (the loader passes paths relative to the module root).
type Position struct {
	File   string
	Line   int
	Column int
}

func (p Position) String() string {
	if p.File == "" {
		return "-"
	}
	if p.Column > 0 {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Line is one comment line as written in the source, with the position of
// its first character ("//").
type Line struct {
	Text string
	Pos  Position
}

// Marker is one parsed, checked marker occurrence.
type Marker struct {
	// Name is the canonical registry name (aliases resolved).
	Name string
	// Spelling is the name as written.
	Spelling string
	Def      *Definition
	// Value: nil for a flag; string, int64, float64, bool, []string, []any
	// for a single value; map[string]any (argument name to value) for a
	// struct marker.
	Value any
	// Raw is the text after the name ("=value" or ":a=1,b=2" without the
	// leading separator), for error messages.
	Raw string
	Pos Position
}

// Error is one marker error at a position.
type Error struct {
	Pos Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is a sorted list of errors; it is an error itself.
type ErrorList []*Error

func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Sort orders errors by file, line, column, message.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return l[i].Msg < l[j].Msg
	})
}

// Err returns nil for an empty list, else the sorted list.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// splitLine finds a marker in one comment line. It returns the marker text
// after "+", and the column offset of "+" in the line, or ok=false when the
// line is not a marker (plain comment, block comment, "+1", build line).
func splitLine(text string) (body string, offset int, ok bool) {
	if !strings.HasPrefix(text, "//") {
		return "", 0, false
	}
	i := 2
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i >= len(text) || text[i] != '+' {
		return "", 0, false
	}
	body = strings.TrimRight(text[i+1:], " \t\r")
	if body == "" || !isLetter(body[0]) {
		return "", 0, false
	}
	if body == "build" || strings.HasPrefix(body, "build ") {
		return "", 0, false // old-style build constraint
	}
	return body, i, true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isNameByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == ':' || c == '-' || c == '_' || c == '.' || c == '/'
}

// ParseLine parses one comment line standing on a declaration of kind target.
// It returns (nil, nil) for lines that are not markers we own or accept.
func (r *Registry) ParseLine(line Line, target Target) (*Marker, *Error) {
	body, off, ok := splitLine(line.Text)
	if !ok {
		return nil, nil
	}
	pos := line.Pos
	pos.Column += off
	errf := func(format string, args ...any) *Error {
		return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}

	// Kubernetes' declarative validation tags may end in a comment
	// ("+k8s:maxItems=16 # why"), as gengo's codetags and controller-tools
	// read them.
	if strings.HasPrefix(body, "k8s:") {
		body = stripTagComment(body)
	}

	// head is the name, possibly followed by ":firstArg", up to "=".
	n := 0
	for n < len(body) && isNameByte(body[n]) {
		n++
	}
	head := body[:n]
	rest := body[n:]
	// controller-tools also reads "+name:=value" as "+name=value"
	// (+kubebuilder:validation:Pattern:=^[a-z]+$).
	if strings.HasSuffix(head, ":") && strings.HasPrefix(rest, "=") {
		head = head[:len(head)-1]
	}
	hasEq := strings.HasPrefix(rest, "=")
	trailing := rest != "" && !hasEq

	name, argText, def := head, "", r.defs[head]
	if hasEq {
		argText = rest[1:]
	}
	structForm := false
	if def == nil {
		if i := strings.LastIndexByte(head, ':'); i > 0 {
			if d := r.defs[head[:i]]; d != nil && len(d.Args) > 0 {
				name, def, structForm = head[:i], d, true
				argText = head[i+1:] + rest
			}
		}
	} else if len(def.Args) > 0 && hasEq {
		// "+kubebuilder:resource=x": struct markers take named arguments.
		return nil, errf("malformed marker %q: %q takes named arguments (+%s:arg=value,...)", "+"+body, def.Name, def.Name)
	}
	if def == nil {
		if fam := r.family(head); fam != nil {
			def = fam
			name = head
		}
	}
	if def == nil {
		if !r.strict(head) {
			return nil, nil
		}
		if s := r.Suggest(head); s != "" {
			return nil, errf("unknown marker %q: did you mean %q?", head, s)
		}
		return nil, errf("unknown marker %q (see: go run ./cmd/gen markers)", head)
	}
	if def.Target&target == 0 {
		return nil, errf("marker %q may stand on %s, not on a %s", name, def.Target, Target(target))
	}
	m := &Marker{Name: name, Spelling: name, Def: def, Raw: argText, Pos: pos}
	if def.Alias != "" {
		m.Name = def.Alias
		m.Def = r.defs[def.Alias]
		def = m.Def
		if d := r.defs[name]; d != nil && (d.Value != nil || len(d.Args) > 0) {
			def = d // parse with the alias's own schema
		}
	}
	if def.Tolerated || def.Family {
		if hasEq || structForm {
			m.Value = argText
		}
		return m, nil
	}
	if trailing && !structForm {
		return nil, errf("malformed marker %q: unexpected %q after the name (write +%s=value)", "+"+body, strings.TrimSpace(rest), name)
	}
	switch {
	case len(def.Args) > 0:
		if !structForm && argText == "" {
			v, err := parseStruct(def, "")
			if err != nil {
				return nil, errf("marker %q: %v", name, err)
			}
			m.Value = v
			return m, nil
		}
		v, err := parseStruct(def, argText)
		if err != nil {
			return nil, errf("marker %q: %v", name, err)
		}
		m.Value = v
	case def.Value != nil:
		if !hasEq {
			if def.Value.Type == BoolArg {
				m.Value = true
				return m, nil
			}
			return nil, errf("marker %q needs a value: +%s=<%s>", name, name, def.Value.Type)
		}
		v, err := parseValue(*def.Value, argText)
		if err != nil {
			return nil, errf("marker %q: %v", name, err)
		}
		m.Value = v
	default: // flag
		if hasEq || structForm {
			return nil, errf("marker %q takes no value, got %q", name, "+"+body)
		}
	}
	return m, nil
}

// stripTagComment drops a "# comment" (outside quotes) from the end of a
// +k8s: marker body.
func stripTagComment(body string) string {
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++
				}
			}
		case '`':
			if j := strings.IndexByte(body[i+1:], '`'); j >= 0 {
				i += j + 1
			} else {
				return body
			}
		case '#':
			return strings.TrimRight(body[:i], " \t")
		}
	}
	return body
}

// ParseBlock parses every line of one comment block standing on a
// declaration of kind target. Non-repeatable markers may occur once.
func (r *Registry) ParseBlock(lines []Line, target Target) ([]*Marker, ErrorList) {
	var out []*Marker
	var errs ErrorList
	seen := map[string]bool{}
	for _, l := range lines {
		m, err := r.ParseLine(l, target)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m == nil {
			continue
		}
		if seen[m.Name] && !m.Def.Repeatable && !m.Def.Tolerated && !m.Def.Family {
			errs = append(errs, &Error{Pos: m.Pos, Msg: fmt.Sprintf("marker %q repeated; it may occur once", m.Spelling)})
			continue
		}
		seen[m.Name] = true
		out = append(out, m)
	}
	return out, errs
}

// parseStruct parses "a=1,b=x;y" against def.Args.
func parseStruct(def *Definition, text string) (map[string]any, error) {
	out := map[string]any{}
	var names []string
	for _, a := range def.Args {
		names = append(names, a.Name)
	}
	if strings.TrimSpace(text) != "" {
		parts, err := splitTop(text, ',')
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			key, val, hasEq := strings.Cut(p, "=")
			key = strings.TrimSpace(key)
			a := def.arg(key)
			if a == nil {
				if s := Closest(key, names); s != "" {
					return nil, fmt.Errorf("unknown argument %q: did you mean %q?", key, s)
				}
				return nil, fmt.Errorf("unknown argument %q (known: %s)", key, strings.Join(names, ", "))
			}
			if _, dup := out[key]; dup {
				return nil, fmt.Errorf("argument %q given twice", key)
			}
			if !hasEq {
				if a.Type != BoolArg {
					return nil, fmt.Errorf("argument %q needs a value", key)
				}
				out[key] = true
				continue
			}
			v, err := parseValue(*a, val)
			if err != nil {
				return nil, fmt.Errorf("argument %q: %w", key, err)
			}
			out[key] = v
		}
	}
	for _, a := range def.Args {
		if _, ok := out[a.Name]; a.Required && !ok {
			return nil, fmt.Errorf("missing required argument %q", a.Name)
		}
	}
	return out, nil
}

// splitTop splits s at sep outside quotes, backquotes and braces.
func splitTop(s string, sep byte) ([]string, error) {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string in %q", s)
			}
			i = j
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return nil, fmt.Errorf("unterminated raw string in %q", s)
			}
			i += j + 1
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced } in %q", s)
			}
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced { in %q", s)
	}
	return append(parts, s[start:]), nil
}

// unquote returns the string value of a bare, "quoted" or `raw` string.
func unquote(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "`"):
		if len(s) < 2 || !strings.HasSuffix(s, "`") {
			return "", fmt.Errorf("unterminated raw string %s", s)
		}
		return s[1 : len(s)-1], nil
	case strings.HasPrefix(s, `"`):
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("bad quoted string %s", s)
		}
		return u, nil
	}
	return s, nil
}

func parseValue(a Arg, text string) (any, error) {
	t := strings.TrimSpace(text)
	if t == "" && a.Type != StringArg && a.Type != AnyArg {
		return nil, fmt.Errorf("empty value, want %s", a.Type)
	}
	switch a.Type {
	case StringArg:
		s, err := unquote(t)
		if err != nil {
			return nil, err
		}
		if s == "" && t == "" {
			return nil, fmt.Errorf("empty value, want a string (write \"\" for the empty string)")
		}
		if len(a.Enum) > 0 && !contains(a.Enum, s) {
			return nil, fmt.Errorf("invalid value %q, want one of %s", s, strings.Join(a.Enum, "|"))
		}
		return s, nil
	case IntArg:
		i, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid integer %q", t)
		}
		return i, nil
	case NumberArg:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid number %q", t)
		}
		return f, nil
	case BoolArg:
		b, err := strconv.ParseBool(t)
		if err != nil || (t != "true" && t != "false") {
			return nil, fmt.Errorf("invalid boolean %q, want true or false", t)
		}
		return b, nil
	case StringListArg:
		items, err := listItems(t)
		if err != nil {
			return nil, err
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			s, err := unquote(it)
			if err != nil {
				return nil, err
			}
			if len(a.Enum) > 0 && !contains(a.Enum, s) {
				return nil, fmt.Errorf("invalid value %q, want one of %s", s, strings.Join(a.Enum, "|"))
			}
			out = append(out, s)
		}
		return out, nil
	case AnyListArg:
		items, err := listItems(t)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, len(items))
		for _, it := range items {
			v, err := anyItem(it)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case RawArg, LiteralArg:
		if strings.HasPrefix(t, "`") {
			return unquote(t)
		}
		return t, nil
	case TextArg:
		if strings.HasPrefix(t, `"`) || strings.HasPrefix(t, "`") {
			return unquote(t)
		}
		if _, err := strconv.ParseFloat(t, 64); err == nil || t == "true" || t == "false" || t == "null" {
			return nil, fmt.Errorf("want a string, got %s (write \"%s\" for the text)", t, t)
		}
		if strings.HasPrefix(t, "{") || strings.Contains(t, ";") {
			return nil, fmt.Errorf("want a string, got the list or map %s (quote it for the text)", t)
		}
		return t, nil
	case AnyArg:
		return t, nil
	}
	return nil, fmt.Errorf("unsupported argument type %d", a.Type)
}

// listItems splits `a;b;c` or `{a,b,c}` into trimmed items.
func listItems(t string) ([]string, error) {
	sep := byte(';')
	if strings.HasPrefix(t, "{") {
		if !strings.HasSuffix(t, "}") {
			return nil, fmt.Errorf("unterminated list %q", t)
		}
		t = t[1 : len(t)-1]
		sep = ','
	}
	parts, err := splitTop(t, sep)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("empty item in list %q", t)
		}
		out = append(out, p)
	}
	return out, nil
}

// anyItem decodes one enum item: JSON if it is a JSON scalar, else a bare string.
func anyItem(s string) (any, error) {
	if strings.HasPrefix(s, "`") {
		return unquote(s)
	}
	if strings.HasPrefix(s, `"`) {
		return unquote(s)
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return json.Number(s), nil
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
