package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"
)

// The list phases count a response's items with a structural scan rather
// than encoding/json: the load generator shares the machine's two cores
// with the servers it measures, and decoding megabytes of items into
// json.RawMessage cost it more CPU than either server spent answering, so
// the lists measured the client. The scan still reads every byte, checks
// that brackets and strings are balanced, and finds the top-level "items"
// array, so a truncated or malformed body fails the phase.
//
// It streams: the body passes through one fixed chunk, never a buffer of
// the whole list. A list of 5,000 objects is megabytes, and regrowing a
// buffer for each one (a sync.Pool loses its buffers at every GC, which
// such allocations bring on) cost the generator more than the scan.

const countChunk = 64 << 10

var chunkPool = sync.Pool{New: func() any { return new([countChunk]byte) }}

// countItems reads a list body from r and returns how many elements its
// top-level "items" array holds.
func countItems(r io.Reader) (int, error) {
	buf := chunkPool.Get().(*[countChunk]byte)
	defer chunkPool.Put(buf)
	var c itemCounter
	c.init()
	for {
		n, err := r.Read(buf[:])
		if n > 0 {
			if serr := c.scan(buf[:n]); serr != nil {
				return 0, serr
			}
		}
		if err == io.EOF {
			return c.result()
		}
		if err != nil {
			return 0, fmt.Errorf("read list body: %w", err)
		}
	}
}

// countItemsIn counts the items of a whole list body held in memory.
func countItemsIn(b []byte) (int, error) {
	var c itemCounter
	c.init()
	if err := c.scan(b); err != nil {
		return 0, err
	}
	return c.result()
}

var errNoItems = errors.New(`no top-level "items" array`)

// itemCounter scans one JSON object fed in chunks of any size. It tracks
// nesting depth and skips strings (with their escapes); at depth 1 a key
// "items" followed by an array starts the count, and each value at depth
// 2 of that array is one item. Its state carries across chunk boundaries.
type itemCounter struct {
	off       int // bytes scanned before the current chunk, for errors
	depth     int
	count     int  // -1 until the items array opens
	inItems   bool // inside the top-level items array
	wantValue bool // at depth 2 of items: the next token starts an item
	inString  bool
	escaped   bool // inString: the previous byte was an unescaped backslash
	strStart  int  // where the open string started, for errors
	// key holds the first bytes of a string at depth 1 (a key, or a
	// value that ends up ignored) and whether it is longer than that.
	key     [len("items")]byte
	keyLen  int
	keyLong bool
	lastKey bool // the last string at depth 1 was exactly "items"
}

func (c *itemCounter) init() { c.count = -1 }

// keep records string bytes at depth 1, as far as "items" needs.
func (c *itemCounter) keep(s []byte) {
	if c.depth != 1 || c.keyLong {
		return
	}
	if c.keyLen+len(s) > len(c.key) {
		c.keyLong = true
		return
	}
	c.keyLen += copy(c.key[c.keyLen:], s)
}

func (c *itemCounter) scan(b []byte) error {
	i := 0
	if c.inString {
		i = c.skipString(b, 0)
	}
	// The hot loop works on locals; the struct is written back at the end.
	depth, count, inItems, wantValue := c.depth, c.count, c.inItems, c.wantValue
	for ; i < len(b); i++ {
		switch ch := b[i]; ch {
		case '"':
			if inItems && depth == 2 && wantValue {
				count++
				wantValue = false
			}
			// Most strings are unescaped and not keys at depth 1: skip
			// those here; the rest take skipString.
			j := i + 1 + quoteOrBackslash(b[i+1:])
			if j < len(b) && b[j] == '"' && depth != 1 {
				i = j
				continue
			}
			c.inString, c.strStart, c.depth = true, c.off+i, depth
			c.keyLen, c.keyLong = 0, false
			i = c.skipString(b, i+1) - 1
		case '{', '[':
			if inItems && depth == 2 && wantValue {
				count++
				wantValue = false
			}
			depth++
			if ch == '[' && depth == 2 && c.lastKey && count < 0 {
				inItems, count, wantValue = true, 0, true
			}
		case '}', ']':
			depth--
			if depth < 0 {
				return fmt.Errorf("unbalanced %q at byte %d", ch, c.off+i)
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
	c.depth, c.count, c.inItems, c.wantValue = depth, count, inItems, wantValue
	c.off += len(b)
	return nil
}

// skipString scans the open string from b[i] and returns the index after
// its closing quote, or len(b) when it goes on in the next chunk. Strings
// at depth 1 are remembered as far as telling "items" apart needs.
func (c *itemCounter) skipString(b []byte, i int) int {
	if c.escaped { // the chunk starts with an escaped byte
		c.escaped = false
		i++
	}
	start := i
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			c.inString = false
			if c.depth == 1 {
				c.keep(b[start:i])
				c.lastKey = !c.keyLong && string(c.key[:c.keyLen]) == "items"
			}
			return i + 1
		case '\\':
			c.keyLong = true // a key with an escape is not "items"
			if i++; i == len(b) {
				c.escaped = true
			}
		}
	}
	if c.depth == 1 {
		c.keep(b[start:])
	}
	return len(b)
}

// quoteOrBackslash returns the index of the first '"' or '\\' in b, or
// len(b). It tests eight bytes at a time: x^0x2222... has a zero byte
// where x has a quote, and (v-0x0101...)&^v&0x8080... marks v's zero
// bytes, exactly from the lowest one up, which is the one wanted.
func quoteOrBackslash(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^(ones*'"'), x^(ones*'\\')
		if m := ((q - ones) &^ q & highs) | ((s - ones) &^ s & highs); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return len(b)
}

// result is the count once the whole body has been scanned.
func (c *itemCounter) result() (int, error) {
	if c.inString {
		return 0, fmt.Errorf("unterminated string at byte %d", c.strStart)
	}
	if c.depth != 0 {
		return 0, fmt.Errorf("truncated list body: %d unclosed brackets", c.depth)
	}
	if c.count < 0 {
		return 0, errNoItems
	}
	return c.count, nil
}
