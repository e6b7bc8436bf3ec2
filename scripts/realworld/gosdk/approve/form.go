package main

import (
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// form is the first HTML form of a page: where it goes and the values it
// would send as it stands.
type form struct {
	method string
	action string
	values url.Values
	names  map[string]bool
}

func findForm(page string) (*form, bool) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return nil, false
	}
	var found *form
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if found != nil && n.Type == html.ElementNode && n.Data == "form" {
			return // only the first form
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "form":
				found = &form{method: strings.ToUpper(attr(n, "method")), action: attr(n, "action"), values: url.Values{}, names: map[string]bool{}}
			case "input", "button":
				if found != nil && attr(n, "name") != "" {
					found.names[attr(n, "name")] = true
					if n.Data == "input" || attr(n, "type") == "submit" {
						found.values.Set(attr(n, "name"), attr(n, "value"))
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return found, found != nil
}

func (f *form) has(name string) bool { return f.names[name] }

// request builds the submission of the form found on the page at base.
func (f *form) request(base *url.URL) (*http.Request, error) {
	target, err := base.Parse(f.action)
	if err != nil {
		return nil, err
	}
	if f.method != http.MethodPost {
		target.RawQuery = f.values.Encode()
		return http.NewRequest(http.MethodGet, target.String(), nil)
	}
	req, err := http.NewRequest(http.MethodPost, target.String(), strings.NewReader(f.values.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req, nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
