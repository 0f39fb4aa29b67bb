#!/usr/bin/env python3
"""Golden vectors for the BLE sessions rail's advertising data (HubBLESessions `Advertisement`).

Run with the ble venv (tools/vectors/.venv-ble, pinned by requirements-ble.txt); normally through
`bash tools/vectors/generate.sh`.

The payloads are built here from the AD structure format of the Bluetooth Core Specification
(Vol 3, Part C, §11: one length octet counting the type and the data, one AD-type octet, the data;
multi-octet values little-endian, Core Specification Supplement Part A), by this file's own code:
nothing here calls hubd. The independent oracle is Home Assistant's `bluetooth-data-tools`
(`parse_advertisement_data`, the parser behind HA's Bluetooth integration and bleak's BlueZ
backend), which must see what we put on air.

Writes ble_advertising.json:
  * kind "encode": for 20 EIDs (fixed seed, plus all-zero and all-ones) the exact service-data
    form and local-name form; the oracle must see service UUID 0000feed-0000-1000-8000-00805f9b34fb,
    service data {FEED: the 5 EID octets} and (name form) the local name GOTCHU + 10 hex digits.
  * kind "scan": scanner-style payloads (padding and a scan response, extra AD structures, other
    UUIDs and service data, Apple manufacturer data, a 128-bit UUID list with FEED, truncated and
    garbage data). Each carries what the oracle extracted (`oracle`), the EID the app's rule gives
    on that extraction (`oracle_eid`, see `eid_from_oracle`), and the verdict `expected_eid` (null:
    the payload must be refused). Where the verdict differs from `oracle_eid`, `divergence` says
    why, per the Core Specification.
Everything is fixed: no randomness beyond a seeded generator, so --check is exact.
"""
import importlib.util
import os
import random
import re

import bluetooth_data_tools
from bluetooth_data_tools import parse_advertisement_data

from vectorlib import hx, parse_args, versions, write_vectors

GENERATOR = "tools/vectors/gen_ble.py"
ORACLES = versions("bluetooth-data-tools")

# Assigned Numbers §2.3 (Common Data Types).
FLAGS = 0x01
INCOMPLETE_16 = 0x02
COMPLETE_16 = 0x03
COMPLETE_32 = 0x05
INCOMPLETE_128 = 0x06
COMPLETE_128 = 0x07
SHORTENED_NAME = 0x08
COMPLETE_NAME = 0x09
TX_POWER = 0x0A
SERVICE_DATA_16 = 0x16
SERVICE_DATA_32 = 0x20
SERVICE_DATA_128 = 0x21
MANUFACTURER = 0xFF

FEED = 0xFEED
FEED_UUID = "0000feed-0000-1000-8000-00805f9b34fb"
BASE_UUID_TAIL = "-0000-1000-8000-00805f9b34fb"
NAME_PREFIX = "GOTCHU"
LEGACY_CAPACITY = 31


def ad(ad_type: int, data: bytes) -> bytes:
    """One AD structure: Length (= 1 + len(data)), AD Type, AD Data."""
    assert len(data) <= 254
    return bytes([len(data) + 1, ad_type]) + bytes(data)


def le16(value: int) -> bytes:
    return value.to_bytes(2, "little")


def le32(value: int) -> bytes:
    return value.to_bytes(4, "little")


def uuid128_le(uuid: str) -> bytes:
    """A UUID string as it goes on air: its 16 octets, least significant first."""
    return bytes.fromhex(uuid.replace("-", ""))[::-1]


def pad(data: bytes, size: int = LEGACY_CAPACITY) -> bytes:
    """The non-significant part: zeros up to the legacy PDU's 31 octets."""
    assert len(data) <= size
    return data + bytes(size - len(data))


FLAGS_06 = ad(FLAGS, b"\x06")  # LE General Discoverable, BR/EDR not supported
FLAGS_1A = ad(FLAGS, b"\x1a")  # what an iPhone sends: general discoverable, LE+BR/EDR (controller, host)
FEED_LIST = ad(COMPLETE_16, le16(FEED))


def service_data_form(eid: bytes) -> bytes:
    return FLAGS_06 + FEED_LIST + ad(SERVICE_DATA_16, le16(FEED) + eid)


def local_name(eid: bytes) -> str:
    return NAME_PREFIX + eid.hex()


def local_name_form(eid: bytes) -> bytes:
    return FLAGS_06 + FEED_LIST + ad(COMPLETE_NAME, local_name(eid).encode())


def _load_pure_python_gap():
    """The oracle's parser from its Python source (gap.py ships beside the compiled module)."""
    path = os.path.join(os.path.dirname(bluetooth_data_tools.__file__), "gap.py")
    spec = importlib.util.spec_from_file_location("_bluetooth_data_tools_gap_py", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PURE_GAP = _load_pure_python_gap()


def oracle_view(data: bytes) -> dict:
    """What the oracle extracts; the compiled parser and its Python source must agree."""
    view = _view(parse_advertisement_data((data,)))
    pure = _view(PURE_GAP.parse_advertisement_data((data,)))
    assert view == pure, (data.hex(), view, pure)
    return view


def _view(adv) -> dict:
    return {
        "local_name": adv.local_name,
        "service_uuids": list(adv.service_uuids),
        "service_data": {uuid: hx(value) for uuid, value in sorted(adv.service_data.items())},
        "manufacturer_data": {f"{company:04x}": hx(value) for company, value in sorted(adv.manufacturer_data.items())},
    }


def eid_from_oracle(view: dict):
    """The app's rule, applied to what the oracle extracted: service data for FEED must carry
    exactly 5 octets (the EID; any other length refuses the payload); otherwise a local name
    GOTCHU + 10 hex digits (either case) counts only beside FEED in a service UUID list."""
    data = view["service_data"].get(FEED_UUID)
    if data is not None:
        octets = bytes.fromhex(data[2:])
        return octets.hex() if len(octets) == 5 else None
    name = view["local_name"]
    if name is not None and name.startswith(NAME_PREFIX) and FEED_UUID in view["service_uuids"]:
        digits = name[len(NAME_PREFIX):]
        if re.fullmatch(r"[0-9a-fA-F]{10}", digits):
            return digits.lower()
    return None


def encode_vectors(eids):
    vectors = []
    for index, eid in enumerate(eids):
        sd, ln = service_data_form(eid), local_name_form(eid)
        assert len(sd) == 16 and len(ln) == 25 and len(ln) <= LEGACY_CAPACITY
        for form, data in (("service_data", sd), ("local_name", ln)):
            view = oracle_view(data)
            assert FEED_UUID in view["service_uuids"], (form, view)
            if form == "service_data":
                assert view["service_data"] == {FEED_UUID: hx(eid)}, view
                assert view["local_name"] is None, view
            else:
                assert view["service_data"] == {}, view
                assert view["local_name"] == local_name(eid), view
            assert eid_from_oracle(view) == eid.hex()
        vectors.append({
            "name": f"encode_{index:02d}_{eid.hex()}",
            "kind": "encode",
            "eid": eid.hex(),
            "service_data_form": hx(sd),
            "local_name_form": hx(ln),
            "local_name": local_name(eid),
        })
    return vectors


def scan_cases():
    """(name, advertising data, expected EID hex or None, note, divergence or None)."""
    e1 = bytes.fromhex("a1b2c3d4e5")
    e2 = bytes.fromhex("0f1e2d3c4b")
    e3 = bytes.fromhex("9988776655")
    sd1, ln1 = service_data_form(e1), local_name_form(e1)
    battery = 0x180F
    heart_rate = 0x180D
    other_128 = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"  # Nordic UART service
    scan_response = ad(TX_POWER, b"\xf4") + ad(COMPLETE_NAME, b"Pixel 8")
    # Apple iBeacon-style manufacturer data: company 0x004C, type 0x02, length 0x15, UUID, major, minor, power.
    ibeacon = ad(MANUFACTURER, le16(0x004C) + b"\x02\x15" + bytes(range(16)) + b"\x00\x01\x00\x02\xc5")
    # Apple "nearby"/continuity frame as iPhones send it.
    apple_nearby = ad(MANUFACTURER, le16(0x004C) + b"\x10\x05\x0b\x1c\x3e\x8a\x21")
    bad_utf8_name = ad(COMPLETE_NAME, b"GOTCHU\xff\xfe" + b"c3d4e5e5")

    cases = [
        # --- what a payee's phone puts on air, as scanners hand it over
        ("service_data_form_padded_to_31", pad(sd1), e1,
         "the service-data form, zero padding to the legacy PDU's 31 octets", None),
        ("service_data_form_padded_with_scan_response", pad(sd1) + scan_response, e1,
         "advertisement padded to 31 octets, then the scan response (TX power, another name)", None),
        ("local_name_form_padded_with_scan_response", pad(ln1) + ad(TX_POWER, b"\x08"), e1,
         "the local-name form padded, then a scan response with a TX power level", None),
        ("local_name_form_unpadded", ln1, e1, "the local-name form exactly as built", None),
        ("android_feed_among_other_uuids", FLAGS_06 + ad(COMPLETE_16, le16(battery) + le16(FEED) + le16(heart_rate))
         + ad(SERVICE_DATA_16, le16(battery) + b"\x64") + ad(SERVICE_DATA_16, le16(FEED) + e2) + ad(TX_POWER, b"\x00"), e2,
         "FEED second in a list of three 16-bit UUIDs; battery service data before FEED's", None),
        ("iphone_flags_and_apple_manufacturer_data", FLAGS_1A + apple_nearby + ad(SERVICE_DATA_16, le16(FEED) + e2), e2,
         "flags 0x1a and Apple continuity manufacturer data before FEED service data", None),
        ("ibeacon_advertisement_feed_in_scan_response", pad(FLAGS_06 + ibeacon) + FEED_LIST + ad(SERVICE_DATA_16, le16(FEED) + e3), e3,
         "a full 30-octet iBeacon advertisement; FEED and its service data in the scan response", None),
        ("feed_in_128_bit_list_with_name", FLAGS_06 + ad(COMPLETE_128, uuid128_le(FEED_UUID)) + ad(COMPLETE_NAME, local_name(e3).encode()), e3,
         "FEED in its 128-bit form in a complete 128-bit UUID list, beside the GOTCHU name", None),
        ("feed_second_in_incomplete_128_bit_list_uppercase_name",
         ad(INCOMPLETE_128, uuid128_le(other_128) + uuid128_le(FEED_UUID)) + ad(COMPLETE_NAME, ("GOTCHU" + e1.hex().upper()).encode()), e1,
         "FEED second in an incomplete 128-bit list; the name's hex digits in upper case", None),
        ("name_in_scan_response_feed_in_incomplete_16_bit_list",
         pad(FLAGS_06 + ad(INCOMPLETE_16, le16(heart_rate) + le16(FEED))) + ad(COMPLETE_NAME, local_name(e2).encode()), e2,
         "the incomplete 16-bit list carries FEED; the name comes in the scan response", None),
        ("shortened_local_name_beside_feed", FLAGS_06 + FEED_LIST + ad(SHORTENED_NAME, local_name(e2).encode()), e2,
         "the name as a Shortened Local Name (0x08) with all 16 characters", None),
        ("service_data_wins_over_name", FLAGS_06 + FEED_LIST + ad(COMPLETE_NAME, local_name(e2).encode())
         + ad(SERVICE_DATA_16, le16(FEED) + e3), e3,
         "both forms, different EIDs: the service data is the EID", None),
        ("zero_type_and_empty_structures_skipped", ad(0x00, b"\x01\x02") + bytes([0x01, TX_POWER]) + sd1, e1,
         "an AD structure of type 0x00 and a length-1 structure (type only, no data) before the service-data form", None),
        # --- near misses: no session id
        ("other_services_only", FLAGS_06 + ad(COMPLETE_16, le16(battery) + le16(heart_rate)) + ad(SERVICE_DATA_16, le16(battery) + b"\x64"), None,
         "other 16-bit UUIDs and service data, no FEED", None),
        ("service_data_uuid_big_endian", FLAGS_06 + ad(SERVICE_DATA_16, b"\xfe\xed" + e1), None,
         "FEED written big-endian (0xEDFE on air): another service", None),
        ("service_data_neighbour_uuid_feee", FLAGS_06 + ad(SERVICE_DATA_16, le16(0xFEEE) + e1), None,
         "5 octets of service data for 0xFEEE", None),
        ("feed_service_data_4_octets", FLAGS_06 + ad(SERVICE_DATA_16, le16(FEED) + e1[:4]), None,
         "FEED service data one octet short", None),
        ("feed_service_data_6_octets", FLAGS_06 + ad(SERVICE_DATA_16, le16(FEED) + e1 + b"\x00"), None,
         "FEED service data one octet long", None),
        ("feed_service_data_empty", FLAGS_06 + ad(SERVICE_DATA_16, le16(FEED)), None,
         "FEED service data with no octets after the UUID", None),
        ("feed_service_data_wrong_length_beside_valid_name", FLAGS_06 + FEED_LIST + ad(SERVICE_DATA_16, le16(FEED) + e1[:3])
         + ad(COMPLETE_NAME, local_name(e2).encode()), None,
         "malformed FEED service data refuses the payload even beside a valid name", None),
        ("name_without_feed_uuid", FLAGS_06 + ad(COMPLETE_16, le16(battery)) + ad(COMPLETE_NAME, local_name(e1).encode()), None,
         "the GOTCHU name with no FEED in any UUID list", None),
        ("name_with_non_hex_digits", FLAGS_06 + FEED_LIST + ad(COMPLETE_NAME, b"GOTCHUa1b2c3d4zz"), None,
         "GOTCHU followed by 10 characters that are not all hex digits", None),
        ("name_with_12_hex_digits", FLAGS_06 + FEED_LIST + ad(COMPLETE_NAME, b"GOTCHUa1b2c3d4e5f6"), None,
         "GOTCHU followed by 12 hex digits", None),
        ("name_with_0x_prefix", FLAGS_06 + FEED_LIST + ad(COMPLETE_NAME, b"GOTCHU0xa1b2c3d4e5"), None,
         "GOTCHU followed by 0x and 10 hex digits", None),
        ("name_prefix_lower_case", FLAGS_06 + FEED_LIST + ad(COMPLETE_NAME, b"gotchua1b2c3d4e5"), None,
         "the prefix is upper case GOTCHU", None),
        ("name_not_utf8", FLAGS_06 + FEED_LIST + bad_utf8_name, None,
         "a name with invalid UTF-8 after GOTCHU", None),
        ("empty", b"", None, "no octets at all", None),
        ("only_padding", bytes(31), None, "31 zero octets", None),
        ("all_ff", b"\xff" * 31, None, "31 octets of 0xff: a first structure claiming 255 octets", None),
        ("ascii_text", b"hello, world! this is not BLE..", None, "31 octets of ASCII text", None),
        ("truncated_service_data", sd1[:12], None,
         "the service-data form cut inside the FEED service data", None),
        # --- payloads where the oracle's lenient reading is not followed
        ("truncated_scan_response_after_service_data", pad(sd1) + ad(COMPLETE_NAME, b"Pixel 8")[:5], None,
         "a valid advertisement followed by a scan response whose name structure is cut short",
         "the oracle skips a structure that claims more octets than remain and keeps the rest; Core Spec Vol 3 Part C §11 "
         "makes every AD structure Length octets long, so the data is malformed, and a payment resolver refuses it "
         "rather than guess which part is intact"),
        ("trailing_lone_length_octet", sd1 + b"\x05", None,
         "the service-data form followed by a single non-zero octet",
         "the oracle stops when fewer than 2 octets remain and ignores a lone length octet; per §11 a non-zero length "
         "starts an AD structure (and only zeros may follow the significant part), so the data is truncated"),
        ("odd_16_bit_uuid_list_with_name", FLAGS_06 + ad(COMPLETE_16, le16(FEED) + b"\x00") + ad(COMPLETE_NAME, local_name(e1).encode()), None,
         "a 16-bit UUID list of 3 octets (FEED then one stray octet) beside the GOTCHU name",
         "the oracle drops the stray octet and lists FEED; a 16-bit UUID list is a whole number of 2-octet UUIDs "
         "(Core Specification Supplement Part A §1.1), so the structure is malformed and the payload refused"),
        # --- FEED in its 32-bit and 128-bit spellings (Core Spec Vol 3 Part B §2.5.1: the same UUID)
        ("service_data_32_bit_uuid_feed", FLAGS_06 + ad(SERVICE_DATA_32, le32(FEED) + e1), e1,
         "Service Data - 32-bit UUID (0x20) for 0x0000FEED: the FEED service's data", None),
        ("service_data_128_bit_uuid_feed", FLAGS_06 + ad(SERVICE_DATA_128, uuid128_le(FEED_UUID) + e2), e2,
         "Service Data - 128-bit UUID (0x21) for 0000feed-0000-1000-8000-00805f9b34fb: the FEED service's data", None),
        ("name_beside_feed_in_32_bit_list", FLAGS_06 + ad(COMPLETE_32, le32(FEED)) + ad(COMPLETE_NAME, local_name(e3).encode()), e3,
         "the GOTCHU name beside 0x0000FEED in a complete 32-bit UUID list (0x05)", None),
    ]
    return cases


def scan_vectors():
    vectors = []
    for name, data, expected, note, divergence in scan_cases():
        view = oracle_view(data)
        oracle_eid = eid_from_oracle(view)
        expected_hex = expected.hex() if expected is not None else None
        if (oracle_eid != expected_hex) != (divergence is not None):
            raise SystemExit(
                f"{name}: oracle says {oracle_eid}, expected {expected_hex}, "
                f"divergence {'given' if divergence else 'missing'}"
            )
        vector = {
            "name": name,
            "kind": "scan",
            "advertising_data": hx(data),
            "oracle": view,
            "oracle_eid": oracle_eid,
            "expected_eid": expected_hex,
            "note": note,
        }
        if divergence is not None:
            vector["divergence"] = divergence
        vectors.append(vector)
    return vectors


def main():
    args = parse_args(__doc__.splitlines()[0])
    # Published facts the builders must reproduce: the 16-bit UUID's Base UUID form, and its
    # little-endian 128-bit spelling (Core Spec Vol 3 Part B §2.5.1).
    assert FEED_UUID == f"0000{FEED:04x}{BASE_UUID_TAIL}"
    assert uuid128_le(FEED_UUID).hex() == "fb349b5f8000008000100000edfe0000"
    assert service_data_form(bytes.fromhex("a1b2c3d4e5")).hex() == "0201060303edfe0816edfea1b2c3d4e5"

    rng = random.Random(0xFEED)
    eids = [bytes(5), b"\xff" * 5] + [bytes(rng.randrange(256) for _ in range(5)) for _ in range(18)]
    vectors = encode_vectors(eids) + scan_vectors()
    write_vectors(args.out, "ble_advertising.json", GENERATOR, ORACLES, vectors)


if __name__ == "__main__":
    main()
