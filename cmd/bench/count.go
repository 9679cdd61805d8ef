package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The list phases count a response's items with a structural scan rather
// than encoding/json: the load generator shares the machine's two cores
// with the servers it measures, and decoding megabytes of items into
// json.RawMessage cost it more CPU than either server spent answering, so
// the lists measured the client. The scan still reads every byte, checks
// that brackets and strings are balanced, and finds the top-level "items"
// array, so a truncated or malformed body fails the phase.

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// countItems reads a list body from r and returns how many elements its
// top-level "items" array holds.
func countItems(r io.Reader) (int, error) {
	buf := bodyPool.Get().(*bytes.Buffer)
	defer bodyPool.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(r); err != nil {
		return 0, fmt.Errorf("read list body: %w", err)
	}
	return countItemsIn(buf.Bytes())
}

var errNoItems = errors.New(`no top-level "items" array`)

// countItemsIn scans one JSON object. It tracks nesting depth and skips
// strings (with their escapes); at depth 1 a key "items" followed by an
// array starts the count, and each value at depth 2 of that array is one
// item.
func countItemsIn(b []byte) (int, error) {
	depth, count := 0, -1
	inItems := false // inside the top-level items array
	lastKey := []byte(nil)
	wantValue := false // at depth 2 of items: the next token starts an item
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			end, err := skipString(b, i)
			if err != nil {
				return 0, err
			}
			if depth == 1 {
				lastKey = b[i+1 : end]
			}
			if inItems && depth == 2 && wantValue {
				count++
				wantValue = false
			}
			i = end
		case '{', '[':
			if inItems && depth == 2 && wantValue {
				count++
				wantValue = false
			}
			depth++
			if c == '[' && depth == 2 && string(lastKey) == "items" && count < 0 {
				inItems, count, wantValue = true, 0, true
			}
		case '}', ']':
			depth--
			if depth < 0 {
				return 0, fmt.Errorf("unbalanced %q at byte %d", c, i)
			}
			if inItems && depth == 1 {
				inItems = false
			}
		case ',':
			if inItems && depth == 2 {
				wantValue = true
			}
		case ' ', '\t', '\n', '\r', ':':
		default:
			// A bare literal (number, true, false, null) as an item.
			if inItems && depth == 2 && wantValue {
				count++
				wantValue = false
			}
		}
	}
	if depth != 0 {
		return 0, fmt.Errorf("truncated list body: %d unclosed brackets", depth)
	}
	if count < 0 {
		return 0, errNoItems
	}
	return count, nil
}

// skipString returns the index of the quote closing the string that
// starts at b[start].
func skipString(b []byte, start int) (int, error) {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i, nil
		case '\\':
			i++ // the escaped byte
		}
	}
	return 0, fmt.Errorf("unterminated string at byte %d", start)
}
