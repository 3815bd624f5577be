"""Live tests: real deliveries from a running sandbox to this receiver over HTTPS.

Run by receiver.test.ts, which starts the sandbox and passes (all required):
KYC_SANDBOX_URL, KYC_USERNAME, KYC_PASSWORD, TLS_CERT, TLS_KEY, and KYC_RECORD_FILE where every
delivery's headers and body are written (the TypeScript side checks them against the contract).
The company gets a signing secret first, so every delivery is signed and this receiver checks it.
"""

import base64
import json
import os
import ssl
import threading
import time
import unittest
import urllib.error
import urllib.request

from kyc_webhook.receiver import KycEvent, make_handler, serve

ENV = {name: os.environ.get(name) for name in ("KYC_SANDBOX_URL", "KYC_USERNAME", "KYC_PASSWORD", "TLS_CERT", "TLS_KEY", "KYC_RECORD_FILE")}
AUTH_KEY = "py-Receiver#Key-7Qm2xWv9Lr4T"
OTHER_KEY = "an0ther-Key!that-is-NOT-ours-93"


def call(method: str, path: str, body: object = None) -> tuple[int, object]:
    credentials = base64.b64encode(f"{ENV['KYC_USERNAME']}:{ENV['KYC_PASSWORD']}".encode()).decode()
    request = urllib.request.Request(
        f"{ENV['KYC_SANDBOX_URL']}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Basic {credentials}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def eventually(check, timeout: float = 20.0):
    until = time.time() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.time() > until:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(0.05)


class DeliveriesFromTheSandbox(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        missing = [name for name, value in ENV.items() if not value]
        if missing:
            raise RuntimeError(f"run through receiver.test.ts; missing {', '.join(missing)}")
        cls.events: list[KycEvent] = []
        cls.requests: list[dict] = []
        cls.lock = threading.Lock()

        def on_event(event: KycEvent) -> None:
            with cls.lock:
                cls.events.append(event)

        def on_request(headers: dict, raw: bytes) -> None:
            with cls.lock:
                cls.requests.append({"headers": headers, "body": raw.decode("utf-8")})

        # Signed from the first delivery: the receiver knows only this secret (test 4 rotates it).
        created, answer = call("POST", "/sandbox/signing-secret")
        assert created == 201, created
        cls.signing_secret = answer["secret"]["secret"]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(ENV["TLS_CERT"], ENV["TLS_KEY"])
        handler = make_handler([AUTH_KEY], on_event, on_request=on_request, signing_secrets=[cls.signing_secret])
        cls.server = serve("127.0.0.1", 0, handler, context)
        cls.url = f"https://127.0.0.1:{cls.server.server_address[1]}/kyc-webhook"
        status, _ = call("PUT", "/sandbox/settings", {"webhookUrl": cls.url, "authKey": AUTH_KEY})
        assert status == 200, status

    @classmethod
    def tearDownClass(cls) -> None:
        if hasattr(cls, "server"):
            cls.server.shutdown()
            with open(ENV["KYC_RECORD_FILE"], "w", encoding="utf-8") as file:
                json.dump(cls.requests, file)

    def finish(self, status: str, shape: str) -> str:
        created, session = call("POST", "/sandbox/sessions", {"status": status, "shape": shape})
        self.assertEqual(created, 201)
        finished, details = call("POST", "/api/v1/kyc/session/finish", {"sessionId": session["id"]})
        self.assertEqual(finished, 200)
        self.assertEqual(details["state"], "FINISHED")
        return session["id"]

    def event_for(self, session_id: str) -> KycEvent:
        def find():
            with self.lock:
                return next((e for e in self.events if e.session_id == session_id), None)

        return eventually(find)

    def signatures_for(self, session_id: str) -> list[str]:
        """The signatures of the first request that carried this session (its Webhook-Signature, split)."""

        def find():
            with self.lock:
                return next((r for r in self.requests if session_id in r["body"]), None)

        return eventually(find)["headers"]["webhook-signature"].split(" ")

    def test_1_each_shape_is_read_into_the_generated_models(self) -> None:
        v1 = self.event_for(self.finish("APPROVED", "v1"))
        self.assertIsNone(v1.status)
        self.assertIn(v1.v1.validation.value, ("AUTOMATIC", "MANUAL"))
        self.assertTrue(v1.v1.details_url.startswith(ENV["KYC_SANDBOX_URL"]))

        status = self.event_for(self.finish("REJECTED", "status"))
        self.assertIsNone(status.v1)
        self.assertEqual(status.status.status.value, "REJECTED")
        self.assertEqual(status.status.event.value, "session.completed")

        both = self.event_for(self.finish("PENDING", "both"))
        self.assertEqual(both.status.status.value, "PENDING")
        self.assertEqual(both.v1.id, both.status.session_id)
        for event in (v1, status, both):
            self.assertTrue(event.event_id)  # the engine's Webhook-Id
            self.assertEqual(len(self.signatures_for(event.session_id)), 1)  # signed, and verified here

    def test_2_a_redelivery_is_answered_200_without_running_the_handler_again(self) -> None:
        session_id = self.finish("ERROR", "status")
        self.event_for(session_id)

        # The event reached this receiver before the sandbox recorded its 200: a redelivery asked
        # for in between is refused with 409 (still pending), so wait for the record first.
        def delivered():
            _, view = call("GET", f"/sandbox/sessions/{session_id}/delivery")
            return view if view["state"] == "delivered" else None

        event_id = eventually(delivered)["eventId"]
        redelivered, _ = call("POST", f"/sandbox/deliveries/{event_id}/redeliver")
        self.assertEqual(redelivered, 202)

        def seen_twice():
            with self.lock:
                return sum(1 for r in self.requests if r["headers"].get("webhook-id") == event_id) >= 2

        eventually(seen_twice)
        _, view = eventually(lambda: (lambda v: v if len(v[1]["attempts"]) >= 2 else None)(call("GET", f"/sandbox/sessions/{session_id}/delivery")))
        self.assertEqual([attempt["status"] for attempt in view["attempts"]], [200, 200])
        with self.lock:
            self.assertEqual(sum(1 for e in self.events if e.event_id == event_id), 1)

    def test_3_a_delivery_with_another_key_is_refused_with_401(self) -> None:
        status, _ = call("PUT", "/sandbox/settings", {"webhookUrl": self.url, "authKey": OTHER_KEY})
        self.assertEqual(status, 200)
        try:
            session_id = self.finish("APPROVED", "both")

            def refused():
                _, view = call("GET", f"/sandbox/sessions/{session_id}/delivery")
                return view if view and view["attempts"] else None

            view = eventually(refused)
            self.assertEqual(view["attempts"][0]["status"], 401)
            with self.lock:
                self.assertFalse(any(e.session_id == session_id for e in self.events))
        finally:
            call("PUT", "/sandbox/settings", {"webhookUrl": self.url, "authKey": AUTH_KEY})

    def test_4_a_rotation_is_verified_during_its_overlap_and_refused_after_it(self) -> None:
        rotated, answer = call("POST", "/sandbox/signing-secret/rotate", {"overlapSeconds": 3600})
        self.assertEqual(rotated, 200)
        self.assertNotEqual(answer["secret"]["secret"], self.signing_secret)
        # During the overlap both signatures arrive in one header: the old one still verifies here.
        during = self.finish("APPROVED", "status")
        self.event_for(during)
        self.assertEqual(len(self.signatures_for(during)), 2)

        ended, _ = call("POST", "/sandbox/signing-secret/end-overlap")
        self.assertEqual(ended, 200)
        after = self.finish("APPROVED", "status")
        self.assertEqual(len(self.signatures_for(after)), 1)

        def refused():
            _, view = call("GET", f"/sandbox/sessions/{after}/delivery")
            return view if view and view["attempts"] else None

        # Only the new secret signs now, and this receiver was given the old one alone: 401, no action.
        self.assertEqual(eventually(refused)["attempts"][0]["status"], 401)
        with self.lock:
            self.assertFalse(any(e.session_id == after for e in self.events))


if __name__ == "__main__":
    unittest.main()
