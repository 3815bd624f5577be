"""Offline tests: the generated models read the contract's own examples, and refuse broken bodies."""

import copy
import json
import pathlib
import unittest

from kyc_webhook.receiver import InvalidBody, parse_webhook

SCHEMAS = pathlib.Path(__file__).resolve().parent.parent.parent / "docs" / "contract" / "schemas"


def example(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.json").read_text("utf-8"))["examples"][0]


def raw(body: object) -> bytes:
    return json.dumps(body).encode()


class ModelsReadTheContractExamples(unittest.TestCase):
    def test_v1_body(self) -> None:
        event = parse_webhook(raw(example("webhook-v1")), "evt_1")
        self.assertIsNone(event.status)
        self.assertEqual(event.v1.validation.value, "AUTOMATIC")
        self.assertEqual(event.v1.scores.one_to_one, 91.7)
        self.assertEqual(event.event_id, "evt_1")

    def test_status_body(self) -> None:
        event = parse_webhook(raw(example("webhook-status")), None)
        self.assertIsNone(event.v1)
        self.assertEqual(event.status.status.value, "APPROVED")
        self.assertEqual(event.status.user_data.date_of_birth, "1990-04-01")
        self.assertTrue(event.status.validation_results.facial_match.passed)
        # No Webhook-Id: the event is the session's result at one time, not the session alone.
        self.assertEqual(event.event_id, f"{event.session_id}:APPROVED:{event.status.timestamp}")

    def test_body_with_both_groups(self) -> None:
        event = parse_webhook(raw(example("webhook-combined")), "evt_2")
        self.assertIsNotNone(event.v1)
        self.assertIsNotNone(event.status)
        self.assertEqual(event.v1.id, event.status.session_id)

    def test_unknown_properties_are_ignored(self) -> None:
        body = copy.deepcopy(example("webhook-status"))
        body["riskLevel"] = "low"
        body["metadata"]["networkType"] = "wifi"
        self.assertEqual(parse_webhook(raw(body), "evt_3").status.status.value, "APPROVED")


class ModelsRefuseBrokenBodies(unittest.TestCase):
    def assert_invalid(self, body: object) -> None:
        with self.assertRaises(InvalidBody):
            parse_webhook(body if isinstance(body, bytes) else raw(body), "evt")

    def test_broken_bodies(self) -> None:
        status = example("webhook-status")
        v1 = example("webhook-v1")
        self.assert_invalid(b"not json")
        self.assert_invalid([1, 2])
        self.assert_invalid({"nothing": True})
        self.assert_invalid({**status, "status": "approved"})
        self.assert_invalid({**status, "confidenceScore": "97"})
        self.assert_invalid({k: v for k, v in v1.items() if k != "scores"})
        self.assert_invalid({**v1, "validation": "ROBOT"})
        self.assert_invalid({**v1, **status, "sessionId": "another"})


if __name__ == "__main__":
    unittest.main()
