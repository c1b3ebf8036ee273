package main

import (
	"fmt"
	"time"

	"github.com/skip2/go-qrcode"
	"github.com/spf13/cobra"

	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func newPairCmd(a *app) *cobra.Command {
	var name string
	var noQR bool
	cmd := &cobra.Command{
		Use:   "pair",
		Short: "Pair a phone or browser with limen's web app, to answer asks from it",
		Long: `pair asks limend (started with --web-addr) for a single-use pairing code, good
for a few minutes, and shows the link holding it as a QR code and as text. Open
it on the phone: it creates a passkey there, and that browser then shows your
pending asks and answers them. Approving a risky ask asks for the passkey, so
an agent on this computer cannot approve for you.

limend names you by the kernel's account of who opened its socket, and refuses
to pair from a shell an agent started: run pair in your own terminal. Compare
the certificate fingerprint it prints with the one the browser shows when
limend uses its self-signed certificate.

limenctl devices lists the paired devices; limenctl devices revoke ID removes
one at once.`,
		Example: `  limenctl pair
  limenctl pair --name tablet
  limenctl pair --json | jq -r .url`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			resp, err := c.API.CreatePairing(ctx, &limenv1.CreatePairingRequest{Name: name})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(resp)
			}
			return printPairing(a, resp, !noQR)
		},
	}
	cmd.Flags().StringVar(&name, "name", "phone", "what to call the device in limenctl devices")
	cmd.Flags().BoolVar(&noQR, "no-qr", false, "print the link without the QR code")
	return cmd
}

func printPairing(a *app, resp *limenv1.CreatePairingResponse, qr bool) error {
	left := time.Until(resp.GetExpiresAt().AsTime()).Round(time.Minute) // 4m59.9s reads as 5m
	fmt.Fprintf(a.out, "Open this link on your phone within %s (it works once), or scan the code:\n\n", describe.Age(left))
	if qr {
		q, err := qrcode.New(resp.GetUrl(), qrcode.Medium)
		if err != nil {
			return fmt.Errorf("make the QR code: %w (limenctl pair --no-qr prints the link alone)", err)
		}
		fmt.Fprintln(a.out, q.ToSmallString(false))
	}
	fmt.Fprintf(a.out, "  %s\n\n", resp.GetUrl())
	if fp := resp.GetCertSha256(); fp != "" {
		fmt.Fprintf(a.out, "Certificate SHA-256 (the browser must show the same for this site):\n  %s\n\n", fp)
	}
	fmt.Fprintf(a.out, "It pairs the device for user %s. limenctl devices lists devices; limenctl devices revoke ID removes one.\n", resp.GetUser())
	return nil
}
