package main

import (
	"encoding/json"
	"fmt"
	"sync"
)

// concurrent checks a server alone under parallel requests of many shapes
// and names: each answer must be about the object its request named (the
// new dispatch reuses go-restful's Request and Response across requests).
// It returns the wrong answers, at most ten.
func (s *server) concurrent(workers, perWorker int) []string {
	const n = 12
	for i := 0; i < n; i++ {
		s.do(req{method: "POST", path: cmGroup, user: "admin", ct: "application/json", body: cmBody(fmt.Sprintf("par-%d", i))})
		s.do(req{method: "POST", path: shpGroup, user: "admin", ct: "application/json", body: shpBody(fmt.Sprintf("par-%d", i))})
	}
	var (
		mu   sync.Mutex
		bad  []string
		wg   sync.WaitGroup
		fail = func(format string, a ...any) {
			mu.Lock()
			if len(bad) < 10 {
				bad = append(bad, fmt.Sprintf(format, a...))
			}
			mu.Unlock()
		}
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := 0; j < perWorker; j++ {
				name := fmt.Sprintf("par-%d", (w*perWorker+j)%n)
				var r req
				switch j % 4 {
				case 0:
					r = req{method: "GET", path: cmGroup + "/" + name, user: "admin"}
				case 1:
					r = req{method: "GET", path: shpGroup + "/" + name + "/status", user: "admin", accept: "application/json, */*"}
				case 2:
					r = req{method: "PATCH", path: shpGroup + "/" + name, user: "admin", ct: "application/merge-patch+json",
						body: fmt.Sprintf(`{"metadata":{"labels":{"w":"%d"}}}`, w)}
				case 3:
					r = req{method: "GET", path: "/api/v1/namespaces/kube-system/configmaps/" + name, user: "admin"}
				}
				res := s.do(r)
				if j%4 == 3 {
					if res.status != 404 || !jsonHas(res.raw, name) {
						fail("%s: %d %.200s", r.label(), res.status, res.raw)
					}
					continue
				}
				var obj struct {
					Metadata struct{ Name, Namespace string } `json:"metadata"`
				}
				if res.status != 200 || json.Unmarshal(res.raw, &obj) != nil || obj.Metadata.Name != name || obj.Metadata.Namespace != "default" {
					fail("%s: %d %.200s", r.label(), res.status, res.raw)
				}
			}
		}(w)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		s.do(req{method: "DELETE", path: cmGroup + fmt.Sprintf("/par-%d", i), user: "admin"})
		s.do(req{method: "DELETE", path: shpGroup + fmt.Sprintf("/par-%d", i), user: "admin"})
	}
	return bad
}

// jsonHas reports whether a Status body names name in its details.
func jsonHas(raw []byte, name string) bool {
	var st struct {
		Details struct{ Name string } `json:"details"`
	}
	return json.Unmarshal(raw, &st) == nil && st.Details.Name == name
}
