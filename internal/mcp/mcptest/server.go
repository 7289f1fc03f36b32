// Package mcptest is an MCP server for chanto's tests, written with the
// same SDK as the client: Main serves stdio, or streamable HTTP with
// -http; flags make it misbehave: -hang never answers, -exit dies at
// start. Every start appends a line to the -marker file, so a test can
// prove a server never started. The CLI tests run it as the command
// mcp-fixture; internal/mcp's tests build testdata/fixture.
package mcptest

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type hugeIn struct {
	Bytes int `json:"bytes" jsonschema:"how many bytes to return"`
}

type sleepIn struct {
	Seconds float64 `json:"seconds"`
}

type nameIn struct {
	Name string `json:"name"`
}

type sumOut struct {
	Sum   int    `json:"sum"`
	Label string `json:"label"`
}

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// Main runs the fixture server with os.Args.
func Main() {
	fs := flag.NewFlagSet("mcp-fixture", flag.ExitOnError)
	marker := fs.String("marker", "", "append a line to this file at start")
	hang := fs.Bool("hang", false, "never answer")
	exit := fs.Bool("exit", false, "exit at once with an error")
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address; its URL goes to -addr-file")
	addrFile := fs.String("addr-file", "", "where -http writes its URL")
	_ = fs.Parse(os.Args[1:])
	if *marker != "" {
		f, err := os.OpenFile(*marker, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "started pid %d\n", os.Getpid())
			f.Close()
		}
	}
	if *exit {
		fmt.Fprintln(os.Stderr, "fixture: cannot open the database (told to fail)")
		os.Exit(7)
	}
	if *hang {
		time.Sleep(time.Hour)
	}
	server := newServer()
	if *httpAddr != "" {
		serveHTTP(server, *httpAddr, *addrFile)
		return
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Answer with an error result."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			r := text("the widget is broken")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit the server in the middle of the call."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "fixture: crashing as asked")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "huge", Description: "Return a large text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in hugeIn) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Bytes)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleep, then answer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			case <-ctx.Done():
			}
			return text("slept"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Return a tiny PNG."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here is the chart"},
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake")},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Add two numbers; structured output."},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			return &mcp.CallToolResult{}, sumOut{Sum: in.A + in.B, Label: "total"}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "List the server's environment variable names."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			var names []string
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				names = append(names, name)
			}
			return text(strings.Join(names, "\n")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Add a tool called NAME (the client hears list-changed)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: in.Name, Description: "Added at run time."},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return text("hello from " + in.Name), nil, nil
				})
			return text("added " + in.Name), nil, nil
		})
	return s
}

func serveHTTP(s *mcp.Server, addr, addrFile string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	if addrFile != "" {
		if err := os.WriteFile(addrFile+".tmp", []byte(url), 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.Rename(addrFile+".tmp", addrFile); err != nil {
			log.Fatal(err)
		}
	}
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if want := os.Getenv("FIXTURE_BEARER"); want != "" && r.Header.Get("Authorization") != "Bearer "+want {
			return nil
		}
		return s
	}, nil)
	log.Fatal(http.Serve(ln, h))
}
