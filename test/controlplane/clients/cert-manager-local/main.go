// Command cert-manager-local runs the parts of cert-manager that Planwright's cert-manager
// variant needs, against a cluster named by a kubeconfig, without a container image:
//
//	cert-manager-local controller --kubeconfig FILE   # Issuers + Certificates (selfSigned, CA)
//	cert-manager-local cainjector --kubeconfig FILE   # caBundle of webhook configurations
//
// cert-manager's command packages (cmd/controller, cmd/cainjector) are Go modules of their
// own that are never tagged, so the module proxy cannot serve them; the controllers they wire
// live in the tagged root module, which this program wires the same way: the controller
// registry (pkg/controller) and the CA injector's reconcilers (pkg/controller/cainjector).
// Only the issuers the variant uses are linked in (no ACME, Vault or Venafi).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cert-manager-local controller|cainjector --kubeconfig FILE [--namespace NS]")
		os.Exit(2)
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "kubeconfig of the cluster (required)")
	namespace := flags.String("namespace", "", "watch only this namespace (default: all)")
	_ = flags.Parse(os.Args[2:])
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "--kubeconfig is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "controller":
		err = runController(ctx, *kubeconfig, *namespace)
	case "cainjector":
		err = runCAInjector(ctx, *kubeconfig, *namespace)
	default:
		err = fmt.Errorf("unknown component %q: want controller or cainjector", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cert-manager-local %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
