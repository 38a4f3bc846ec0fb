"""Domain vocabularies of generated normative worlds, as data.

Each domain names people (the constants of its worlds), unary predicates (roles and
conditions of a person), binary predicates (relations between two people) and actions, each
with an English phrase used by the renderer: `{x}` and `{y}` stand for the arguments
(`apprentice` -> "{x} is an apprentice", `supervises` -> "{x} supervises {y}"), an action's
phrase is the verb phrase that follows a modal ("enter the archive"). `subsumptions` are
pairs (narrower, broader) of unary predicates that identity rules join
(`trainee(X) -> apprentice(X)`). Every name is a valid `.norm` name, and a predicate that
two domains share has one phrase (checked on import, as the rest).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The prefixes of generated rule ids (`r1`, `rule1`, `n1`, `reg1`, `art1`, `sec1`).
RULE_PREFIXES = ("r", "rule", "n", "reg", "art", "sec")

_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Domain:
    name: str
    people: tuple[str, ...]
    #: Unary predicate -> phrase with `{x}`.
    roles: dict[str, str]
    #: Binary predicate -> phrase with `{x}` and `{y}`.
    relations: dict[str, str]
    #: Action -> verb phrase.
    actions: dict[str, str]
    #: (narrower, broader) unary predicates: whoever is the first is the second.
    subsumptions: tuple[tuple[str, str], ...]


DOMAINS: tuple[Domain, ...] = (
    Domain(
        "archive",
        ("alice", "bruno", "carla", "dmitri", "elena", "farid", "greta", "hugo", "ines", "jonas"),
        {
            "apprentice": "{x} is an apprentice",
            "trainee": "{x} is a trainee",
            "archivist": "{x} is an archivist",
            "curator": "{x} is a curator",
            "visiting_scholar": "{x} is a visiting scholar",
            "emergency_rescue": "{x} is on an emergency rescue",
            "has_clearance": "{x} has security clearance",
            "on_probation": "{x} is on probation",
            "fire_warden": "{x} is a fire warden",
            "wearing_gloves": "{x} is wearing cotton gloves",
        },
        {
            "supervises": "{x} supervises {y}",
            "accompanies": "{x} accompanies {y}",
        },
        {
            "enter_archive": "enter the archive",
            "copy_manuscript": "copy a manuscript",
            "lock_archive": "lock the archive",
            "borrow_folio": "borrow a folio",
            "photograph_records": "photograph the records",
        },
        (("trainee", "apprentice"), ("curator", "archivist"), ("fire_warden", "has_clearance")),
    ),
    Domain(
        "laboratory",
        ("kofi", "lena", "marco", "nadia", "oskar", "priya", "quentin", "rosa", "sami", "tara"),
        {
            "technician": "{x} is a lab technician",
            "lab_intern": "{x} is a lab intern",
            "principal_investigator": "{x} is a principal investigator",
            "staff_scientist": "{x} is a staff scientist",
            "safety_officer": "{x} is a safety officer",
            "hazard_certified": "{x} is certified for hazardous work",
            "wearing_goggles": "{x} is wearing safety goggles",
            "has_allergy": "{x} has a reported allergy",
            "visiting_researcher": "{x} is a visiting researcher",
            "on_leave": "{x} is on leave",
        },
        {
            "supervises": "{x} supervises {y}",
            "mentors": "{x} mentors {y}",
        },
        {
            "handle_reagents": "handle the reagents",
            "use_centrifuge": "use the centrifuge",
            "enter_clean_room": "enter the clean room",
            "dispose_waste": "dispose of chemical waste",
            "run_overnight": "run an experiment overnight",
        },
        (
            ("lab_intern", "technician"),
            ("principal_investigator", "staff_scientist"),
            ("safety_officer", "hazard_certified"),
        ),
    ),
    Domain(
        "hospital",
        ("amara", "ben", "chloe", "diego", "esther", "felix", "gina", "henrik", "isla", "jamal"),
        {
            "nurse": "{x} is a nurse",
            "resident": "{x} is a resident physician",
            "attending_physician": "{x} is an attending physician",
            "licensed": "{x} holds a medical license",
            "medical_student": "{x} is a medical student",
            "trainee": "{x} is a trainee",
            "on_call": "{x} is on call",
            "off_duty": "{x} is off duty",
            "has_consent": "{x} has the patient's consent",
            "flu_symptoms": "{x} has flu symptoms",
        },
        {
            "supervises": "{x} supervises {y}",
            "assists": "{x} assists {y}",
        },
        {
            "prescribe_medication": "prescribe medication",
            "access_records": "access patient records",
            "perform_surgery": "perform surgery",
            "administer_sedation": "administer sedation",
            "leave_ward": "leave the ward",
        },
        (
            ("attending_physician", "licensed"),
            ("medical_student", "trainee"),
            ("resident", "licensed"),
        ),
    ),
    Domain(
        "library",
        ("kai", "lucia", "mateo", "nora", "omar", "paula", "rafael", "sofia", "tomas", "uma"),
        {
            "librarian": "{x} is a librarian",
            "staff_member": "{x} is a staff member",
            "member": "{x} is a library member",
            "student_member": "{x} is a student member",
            "guest": "{x} is a guest",
            "has_overdue_loans": "{x} has overdue loans",
            "reading_pass": "{x} holds a reading-room pass",
            "volunteer": "{x} is a volunteer",
            "banned": "{x} is under a borrowing ban",
            "researcher": "{x} is a registered researcher",
        },
        {
            "vouches_for": "{x} vouches for {y}",
            "supervises": "{x} supervises {y}",
        },
        {
            "borrow_rare_book": "borrow a rare book",
            "use_reading_room": "use the reading room",
            "enter_stacks": "enter the closed stacks",
            "renew_loan": "renew a loan",
            "reshelve_books": "reshelve the books",
        },
        (("student_member", "member"), ("librarian", "staff_member"), ("volunteer", "guest")),
    ),
    Domain(
        "school",
        ("aiko", "bilal", "celine", "dario", "emma", "finn", "hana", "ivan", "julia", "leon"),
        {
            "pupil": "{x} is a pupil",
            "prefect": "{x} is a prefect",
            "teacher": "{x} is a teacher",
            "substitute_teacher": "{x} is a substitute teacher",
            "has_parental_consent": "{x} has parental consent",
            "on_detention": "{x} is on detention",
            "first_aid_trained": "{x} is trained in first aid",
            "class_captain": "{x} is the class captain",
            "sports_captain": "{x} is the sports captain",
            "exempted": "{x} has a medical exemption",
        },
        {
            "teaches": "{x} teaches {y}",
            "supervises": "{x} supervises {y}",
        },
        {
            "leave_campus": "leave the campus",
            "use_gym": "use the gym",
            "join_field_trip": "join the field trip",
            "access_staff_room": "access the staff room",
            "invigilate_exam": "invigilate the exam",
        },
        (
            ("prefect", "pupil"),
            ("substitute_teacher", "teacher"),
            ("sports_captain", "class_captain"),
        ),
    ),
    Domain(
        "factory",
        ("anton", "beatriz", "cyrus", "dalia", "emil", "fatima", "gustav", "hilde", "igor", "jana"),
        {
            "operator": "{x} is a machine operator",
            "foreman": "{x} is a foreman",
            "apprentice": "{x} is an apprentice",
            "maintenance_engineer": "{x} is a maintenance engineer",
            "forklift_certified": "{x} is forklift certified",
            "wearing_helmet": "{x} is wearing a helmet",
            "night_shift": "{x} is on the night shift",
            "injured": "{x} is injured",
            "contractor": "{x} is an outside contractor",
            "union_steward": "{x} is a union steward",
        },
        {
            "supervises": "{x} supervises {y}",
            "trains": "{x} trains {y}",
        },
        {
            "operate_press": "operate the press",
            "drive_forklift": "drive the forklift",
            "stop_line": "stop the production line",
            "enter_furnace_area": "enter the furnace area",
            "work_overtime": "work overtime",
        },
        (
            ("foreman", "operator"),
            ("maintenance_engineer", "forklift_certified"),
            ("union_steward", "operator"),
        ),
    ),
)

DOMAIN_NAMES = tuple(domain.name for domain in DOMAINS)


def domain(name: str) -> Domain:
    for found in DOMAINS:
        if found.name == name:
            return found
    raise KeyError(name)


#: Every person of every domain, in order (the pool of surface renamings).
PEOPLE: tuple[str, ...] = tuple(dict.fromkeys(p for d in DOMAINS for p in d.people))
#: Predicate -> phrase and action -> verb phrase over every domain.
PHRASES: dict[str, str] = {}
ACTION_PHRASES: dict[str, str] = {}


def _register() -> None:
    """Fill PHRASES and ACTION_PHRASES, checking names, arities and shared phrases."""
    kinds: dict[str, str] = {}
    for found in DOMAINS:
        groups = (
            ("person", dict.fromkeys(found.people, "")),
            ("role", found.roles),
            ("relation", found.relations),
            ("action", found.actions),
        )
        for kind, names in groups:
            for name, phrase in names.items():
                if not _NAME.match(name):
                    raise ValueError(f"{found.name}: '{name}' is not a .norm name")
                if kinds.setdefault(name, kind) != kind:
                    raise ValueError(f"{found.name}: '{name}' is a {kinds[name]} and a {kind}")
                table = ACTION_PHRASES if kind == "action" else PHRASES
                if kind != "person" and table.setdefault(name, phrase) != phrase:
                    raise ValueError(f"'{name}' has two phrases: {table[name]!r}, {phrase!r}")
        for narrower, broader in found.subsumptions:
            if narrower not in found.roles or broader not in found.roles:
                raise ValueError(f"{found.name}: {narrower} -> {broader} joins unknown roles")
    for prefix in RULE_PREFIXES:
        if not _NAME.match(f"{prefix}1") or f"{prefix}1" in kinds:
            raise ValueError(f"rule prefix '{prefix}' makes clashing names")


_register()
