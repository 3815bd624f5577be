from dataclasses import dataclass
from typing import Any, Dict, Union, Optional, TypeVar, Type, cast, Callable
from enum import Enum


T = TypeVar("T")
EnumT = TypeVar("EnumT", bound=Enum)


def from_float(x: Any) -> float:
    assert isinstance(x, (float, int)) and not isinstance(x, bool)
    return float(x)


def to_float(x: Any) -> float:
    assert isinstance(x, (int, float))
    return x


def from_str(x: Any) -> str:
    assert isinstance(x, str)
    return x


def to_class(c: Type[T], x: Any) -> dict:
    assert isinstance(x, c)
    return cast(Any, x).to_dict()


def to_enum(c: Type[EnumT], x: Any) -> EnumT:
    assert isinstance(x, c)
    return x.value


def from_dict(f: Callable[[Any], T], x: Any) -> Dict[str, T]:
    assert isinstance(x, dict)
    return { k: f(v) for (k, v) in x.items() }


def from_union(fs, x):
    for f in fs:
        try:
            return f(x)
        except:
            pass
    assert False


def from_bool(x: Any) -> bool:
    assert isinstance(x, bool)
    return x


def from_none(x: Any) -> Any:
    assert x is None
    return x


@dataclass
class Scores:
    """The verification scores, each on the 0–100 scale."""

    document: float
    """Document verification score (0–100)."""

    liveness: float
    """Liveness verification score (0–100)."""

    one_to_one: float
    """One-to-one (face match) verification score (0–100)."""

    total: float
    """Total verification score (0–100)."""

    @staticmethod
    def from_dict(obj: Any) -> 'Scores':
        assert isinstance(obj, dict)
        document = from_float(obj.get("document"))
        liveness = from_float(obj.get("liveness"))
        one_to_one = from_float(obj.get("oneToOne"))
        total = from_float(obj.get("total"))
        return Scores(document, liveness, one_to_one, total)

    def to_dict(self) -> dict:
        result: dict = {}
        result["document"] = to_float(self.document)
        result["liveness"] = to_float(self.liveness)
        result["oneToOne"] = to_float(self.one_to_one)
        result["total"] = to_float(self.total)
        return result


class Validation(Enum):
    """Validation method used."""

    AUTOMATIC = "AUTOMATIC"
    MANUAL = "MANUAL"


@dataclass
class CompletionWebhookV1Shape:
    """The completion webhook body of the specification's version 1 (§2.1). Properties not
    listed here may appear in later versions: ignore them, never reject a body because of
    them.
    """
    details_url: str
    """URL of the details of the finished flow, `{baseUrl}/api/v1/kyc/session/<id>`: GET it with
    the operator-issued credentials. Check that it points at the service's origin before
    sending them.
    """
    duration: str
    """Duration of the session: one or more number + unit pairs, units `ns`, `us`, `µs`, `ms`,
    `s`, `m`, `h`, `d`.
    """
    ended_at: str
    """End of the session: an ISO 8601 UTC timestamp with fractional seconds and `Z`."""

    id: str
    """Session identifier."""

    scores: Scores
    """The verification scores, each on the 0–100 scale."""

    short_key: str
    """Short key associated with the session."""

    started_at: str
    """Start of the session: an ISO 8601 UTC timestamp with fractional seconds and `Z`."""

    validation: Validation
    """Validation method used."""

    @staticmethod
    def from_dict(obj: Any) -> 'CompletionWebhookV1Shape':
        assert isinstance(obj, dict)
        details_url = from_str(obj.get("detailsURL"))
        duration = from_str(obj.get("duration"))
        ended_at = from_str(obj.get("endedAt"))
        id = from_str(obj.get("id"))
        scores = Scores.from_dict(obj.get("scores"))
        short_key = from_str(obj.get("shortKey"))
        started_at = from_str(obj.get("startedAt"))
        validation = Validation(obj.get("validation"))
        return CompletionWebhookV1Shape(details_url, duration, ended_at, id, scores, short_key, started_at, validation)

    def to_dict(self) -> dict:
        result: dict = {}
        result["detailsURL"] = from_str(self.details_url)
        result["duration"] = from_str(self.duration)
        result["endedAt"] = from_str(self.ended_at)
        result["id"] = from_str(self.id)
        result["scores"] = to_class(Scores, self.scores)
        result["shortKey"] = from_str(self.short_key)
        result["startedAt"] = from_str(self.started_at)
        result["validation"] = to_enum(Validation, self.validation)
        return result


class Event(Enum):
    SESSION_COMPLETED = "session.completed"


@dataclass
class Metadata:
    """Where and on what the session ran."""

    device: Union[Dict[str, Any], str]
    """Device information: an object (type, operating system, browser, model) or a text."""

    geolocation: Union[Dict[str, Any], str]
    """Geolocation: an object (country, region, city, coordinates) or a place as text."""

    ip_address: str
    """IP address (IPv4 or IPv6) of the person's device."""

    @staticmethod
    def from_dict(obj: Any) -> 'Metadata':
        assert isinstance(obj, dict)
        device = from_union([lambda x: from_dict(lambda x: x, x), from_str], obj.get("device"))
        geolocation = from_union([lambda x: from_dict(lambda x: x, x), from_str], obj.get("geolocation"))
        ip_address = from_str(obj.get("ipAddress"))
        return Metadata(device, geolocation, ip_address)

    def to_dict(self) -> dict:
        result: dict = {}
        result["device"] = from_union([lambda x: from_dict(lambda x: x, x), from_str], self.device)
        result["geolocation"] = from_union([lambda x: from_dict(lambda x: x, x), from_str], self.geolocation)
        result["ipAddress"] = from_str(self.ip_address)
        return result


class Status(Enum):
    """Verification status, with the specification's suggested customer action: `APPROVED`
    (Activate the account), `REJECTED` (Ask for a retry or more documents), `PENDING` (Notify
    the compliance team), `ERROR` (Allow the user to retry).
    """
    APPROVED = "APPROVED"
    ERROR = "ERROR"
    PENDING = "PENDING"
    REJECTED = "REJECTED"


@dataclass
class UserData:
    """The verified person's data."""

    date_of_birth: str
    """Date of birth, `YYYY-MM-DD`."""

    document_number: str
    """Number of the identity document."""

    name: str
    """Full name of the verified person."""

    nationality: str
    """Nationality, e.g. an ISO 3166-1 alpha-2 country code."""

    @staticmethod
    def from_dict(obj: Any) -> 'UserData':
        assert isinstance(obj, dict)
        date_of_birth = from_str(obj.get("dateOfBirth"))
        document_number = from_str(obj.get("documentNumber"))
        name = from_str(obj.get("name"))
        nationality = from_str(obj.get("nationality"))
        return UserData(date_of_birth, document_number, name, nationality)

    def to_dict(self) -> dict:
        result: dict = {}
        result["dateOfBirth"] = from_str(self.date_of_birth)
        result["documentNumber"] = from_str(self.document_number)
        result["name"] = from_str(self.name)
        result["nationality"] = from_str(self.nationality)
        return result


@dataclass
class DocumentAuthenticityClass:
    passed: Optional[bool] = None
    """Whether the check passed."""

    score: Optional[float] = None
    """Score of the check (0–100)."""

    @staticmethod
    def from_dict(obj: Any) -> 'DocumentAuthenticityClass':
        assert isinstance(obj, dict)
        passed = from_union([from_bool, from_none], obj.get("passed"))
        score = from_union([from_float, from_none], obj.get("score"))
        return DocumentAuthenticityClass(passed, score)

    def to_dict(self) -> dict:
        result: dict = {}
        if self.passed is not None:
            result["passed"] = from_union([from_bool, from_none], self.passed)
        if self.score is not None:
            result["score"] = from_union([to_float, from_none], self.score)
        return result


@dataclass
class FacialMatchClass:
    passed: Optional[bool] = None
    """Whether the check passed."""

    score: Optional[float] = None
    """Score of the check (0–100)."""

    @staticmethod
    def from_dict(obj: Any) -> 'FacialMatchClass':
        assert isinstance(obj, dict)
        passed = from_union([from_bool, from_none], obj.get("passed"))
        score = from_union([from_float, from_none], obj.get("score"))
        return FacialMatchClass(passed, score)

    def to_dict(self) -> dict:
        result: dict = {}
        if self.passed is not None:
            result["passed"] = from_union([from_bool, from_none], self.passed)
        if self.score is not None:
            result["score"] = from_union([to_float, from_none], self.score)
        return result


@dataclass
class LivenessDetectionClass:
    passed: Optional[bool] = None
    """Whether the check passed."""

    score: Optional[float] = None
    """Score of the check (0–100)."""

    @staticmethod
    def from_dict(obj: Any) -> 'LivenessDetectionClass':
        assert isinstance(obj, dict)
        passed = from_union([from_bool, from_none], obj.get("passed"))
        score = from_union([from_float, from_none], obj.get("score"))
        return LivenessDetectionClass(passed, score)

    def to_dict(self) -> dict:
        result: dict = {}
        if self.passed is not None:
            result["passed"] = from_union([from_bool, from_none], self.passed)
        if self.score is not None:
            result["score"] = from_union([to_float, from_none], self.score)
        return result


@dataclass
class ValidationResults:
    """The results of the individual checks."""

    document_authenticity: Union[bool, float, DocumentAuthenticityClass, str]
    """Document authenticity check. The service sends `{passed, score}`; a boolean, a 0–100
    score or a status word are accepted as well.
    """
    facial_match: Union[bool, float, FacialMatchClass, str]
    """Facial match check. The service sends `{passed, score}`; a boolean, a 0–100 score or a
    status word are accepted as well.
    """
    liveness_detection: Union[bool, float, LivenessDetectionClass, str]
    """Liveness detection check. The service sends `{passed, score}`; a boolean, a 0–100 score
    or a status word are accepted as well.
    """

    @staticmethod
    def from_dict(obj: Any) -> 'ValidationResults':
        assert isinstance(obj, dict)
        document_authenticity = from_union([from_bool, from_float, DocumentAuthenticityClass.from_dict, from_str], obj.get("documentAuthenticity"))
        facial_match = from_union([from_bool, from_float, FacialMatchClass.from_dict, from_str], obj.get("facialMatch"))
        liveness_detection = from_union([from_bool, from_float, LivenessDetectionClass.from_dict, from_str], obj.get("livenessDetection"))
        return ValidationResults(document_authenticity, facial_match, liveness_detection)

    def to_dict(self) -> dict:
        result: dict = {}
        result["documentAuthenticity"] = from_union([from_bool, to_float, lambda x: to_class(DocumentAuthenticityClass, x), from_str], self.document_authenticity)
        result["facialMatch"] = from_union([from_bool, to_float, lambda x: to_class(FacialMatchClass, x), from_str], self.facial_match)
        result["livenessDetection"] = from_union([from_bool, to_float, lambda x: to_class(LivenessDetectionClass, x), from_str], self.liveness_detection)
        return result


@dataclass
class CompletionWebhookStatusShape:
    """The completion webhook body of the Auth Key variant (§2.2), with the property names this
    SDK fixes. Properties not listed here may appear in later versions: ignore them, never
    reject a body because of them.
    """
    confidence_score: float
    """Confidence score of the verification (0–100)."""

    event: Event
    """Notification that the session completed: the only event the service sends."""

    metadata: Metadata
    """Where and on what the session ran."""

    session_id: str
    """Session identifier (the same value as `id` when a body carries both groups)."""

    status: Status
    """Verification status, with the specification's suggested customer action: `APPROVED`
    (Activate the account), `REJECTED` (Ask for a retry or more documents), `PENDING` (Notify
    the compliance team), `ERROR` (Allow the user to retry).
    """
    timestamp: str
    """When the session completed: an ISO 8601 UTC timestamp with fractional seconds and `Z`."""

    user_data: UserData
    """The verified person's data."""

    validation_results: ValidationResults
    """The results of the individual checks."""

    @staticmethod
    def from_dict(obj: Any) -> 'CompletionWebhookStatusShape':
        assert isinstance(obj, dict)
        confidence_score = from_float(obj.get("confidenceScore"))
        event = Event(obj.get("event"))
        metadata = Metadata.from_dict(obj.get("metadata"))
        session_id = from_str(obj.get("sessionId"))
        status = Status(obj.get("status"))
        timestamp = from_str(obj.get("timestamp"))
        user_data = UserData.from_dict(obj.get("userData"))
        validation_results = ValidationResults.from_dict(obj.get("validationResults"))
        return CompletionWebhookStatusShape(confidence_score, event, metadata, session_id, status, timestamp, user_data, validation_results)

    def to_dict(self) -> dict:
        result: dict = {}
        result["confidenceScore"] = to_float(self.confidence_score)
        result["event"] = to_enum(Event, self.event)
        result["metadata"] = to_class(Metadata, self.metadata)
        result["sessionId"] = from_str(self.session_id)
        result["status"] = to_enum(Status, self.status)
        result["timestamp"] = from_str(self.timestamp)
        result["userData"] = to_class(UserData, self.user_data)
        result["validationResults"] = to_class(ValidationResults, self.validation_results)
        return result


def completion_webhook_v1_shape_from_dict(s: Any) -> CompletionWebhookV1Shape:
    return CompletionWebhookV1Shape.from_dict(s)


def completion_webhook_v1_shape_to_dict(x: CompletionWebhookV1Shape) -> Any:
    return to_class(CompletionWebhookV1Shape, x)


def completion_webhook_status_shape_from_dict(s: Any) -> CompletionWebhookStatusShape:
    return CompletionWebhookStatusShape.from_dict(s)


def completion_webhook_status_shape_to_dict(x: CompletionWebhookStatusShape) -> Any:
    return to_class(CompletionWebhookStatusShape, x)
