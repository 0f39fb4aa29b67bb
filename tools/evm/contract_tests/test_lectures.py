"""Lectures.vy: lectures sold in runs, seats, attendance, evaluations, the §3.3 settlement with the
teacher's incentive, cancellation and refunds."""
import boa
import pytest
from conftest import account, events

PRICE = 3 * 10**17 + 7  # wei, odd
SESSIONS = 4
MIN_ATTENDANCE = 2
DURATION = 30 * 86400
OPEN, SETTLED, CANCELLED = 1, 2, 3


@pytest.fixture
def lectures(lectures_deployer, platform, deployer):
    with boa.env.prank(deployer):
        return lectures_deployer.deploy(platform)


@pytest.fixture
def teacher():
    return account("teacher")


@pytest.fixture
def students():
    return [account(f"student{i}") for i in range(4)]


@pytest.fixture
def end_time():
    return boa.env.timestamp + DURATION


@pytest.fixture
def lecture(lectures, teacher, end_time):
    return lectures.createLecture(PRICE, 3, SESSIONS, MIN_ATTENDANCE, end_time, sender=teacher)


def enroll(lectures, lecture, student, price=PRICE):
    lectures.purchase(lecture, value=price, sender=student)


def attend(lectures, lecture, teacher, student, sessions=MIN_ATTENDANCE):
    for session in range(sessions):
        lectures.recordAttendance(lecture, session, student, sender=teacher)


def settled_split(total, average):
    fee = total // 10
    percent = 15 if average == 100 else 10 if average >= 80 else 5 if average >= 60 else 0
    incentive = (fee * percent + 50) // 100
    return fee, incentive, total - fee + incentive


def test_create_opens_run_zero(lectures, teacher, end_time):
    lecture_id = lectures.createLecture(PRICE, 3, SESSIONS, MIN_ATTENDANCE, end_time, sender=teacher)
    (created,) = events(lectures, "LectureCreated")
    (opened,) = events(lectures, "RunOpened")
    assert (created.lectureId, created.teacher, created.sessions, created.minAttendance) == (1, teacher, SESSIONS, MIN_ATTENDANCE)
    assert (opened.lectureId, opened.run, opened.price, opened.capacity, opened.endTime) == (1, 0, PRICE, 3, end_time)
    assert lecture_id == 1 and lectures.lectureCount() == 1
    assert tuple(lectures.lecture(1)) == (teacher, SESSIONS, MIN_ATTENDANCE, 1)
    run = lectures.run(1, 0)
    assert (run.state, run.price, run.capacity, run.sold, run.total, run.endTime) == (OPEN, PRICE, 3, 0, 0, end_time)


# §3.1: the lecture id was keccak(block.number, sender, cost), so a teacher creating two lectures at
# the same cost in one block reverted. Here ids are sequential.
def test_lecture_ids_are_sequential_even_for_equal_lectures(lectures, teacher, end_time):
    assert lectures.createLecture(PRICE, 3, SESSIONS, MIN_ATTENDANCE, end_time, sender=teacher) == 1
    assert lectures.createLecture(PRICE, 3, SESSIONS, MIN_ATTENDANCE, end_time, sender=teacher) == 2


@pytest.mark.parametrize(
    "args,reason",
    [
        ((0, 3, 4, 2), "price is zero"),
        ((PRICE, 0, 4, 2), "capacity is zero"),
        ((PRICE, 3, 0, 1), "sessions out of range"),
        ((PRICE, 3, 257, 1), "sessions out of range"),
        ((PRICE, 3, 4, 0), "minimum attendance out of range"),
        ((PRICE, 3, 4, 5), "minimum attendance out of range"),
    ],
)
def test_create_refusals(lectures, teacher, end_time, args, reason):
    with boa.reverts(reason):
        lectures.createLecture(*args, end_time, sender=teacher)


def test_create_refuses_an_end_in_the_past(lectures, teacher):
    with boa.reverts("the end is not in the future"):
        lectures.createLecture(PRICE, 3, SESSIONS, MIN_ATTENDANCE, boa.env.timestamp, sender=teacher)


# §3.2: the price was set in whole KLAY and the payment had to be cost * 10**18. Here the price is
# in wei and must be paid exactly.
@pytest.mark.parametrize("payment", [0, PRICE - 1, PRICE + 1, (PRICE // 10**18) * 10**18])
def test_purchase_must_pay_the_exact_price_in_wei(lectures, lecture, students, payment):
    with boa.reverts("payment must equal the price"):
        lectures.purchase(lecture, value=payment, sender=students[0])


def test_purchase_takes_a_seat(lectures, lecture, students):
    lectures.purchase(lecture, value=PRICE, sender=students[0])
    (event,) = events(lectures, "SeatPurchased")
    assert (event.lectureId, event.run, event.student, event.price) == (lecture, 0, students[0], PRICE)
    run = lectures.run(lecture, 0)
    assert (run.sold, run.total) == (1, PRICE)
    assert lectures.seat(lecture, 0, students[0]).paid == PRICE
    assert boa.env.get_balance(lectures.address) == PRICE


# §3.2: purchaseLecture had no duplicate-purchase check.
def test_a_student_buys_one_seat_per_run(lectures, lecture, students):
    enroll(lectures, lecture, students[0])
    with boa.reverts("already has a seat in this run"):
        lectures.purchase(lecture, value=PRICE, sender=students[0])


# §3.2: the capacity (limit_num) was checked only by the server.
def test_no_purchase_beyond_capacity(lectures, lecture, students):
    for student in students[:3]:
        enroll(lectures, lecture, student)
    before = boa.env.get_balance(students[3])
    with boa.reverts("no seat left"):
        lectures.purchase(lecture, value=PRICE, sender=students[3])
    assert boa.env.get_balance(students[3]) == before


def test_purchase_refusals(lectures, lecture, teacher, students, end_time):
    with boa.reverts("the teacher cannot buy a seat"):
        lectures.purchase(lecture, value=PRICE, sender=teacher)
    with boa.reverts("no such lecture"):
        lectures.purchase(9, value=PRICE, sender=students[0])
    boa.env.timestamp = end_time
    with boa.reverts("the run has ended"):
        lectures.purchase(lecture, value=PRICE, sender=students[0])


def test_teacher_records_attendance_once_per_session(lectures, lecture, teacher, students, stranger):
    enroll(lectures, lecture, students[0])
    lectures.recordAttendance(lecture, 3, students[0], sender=teacher)
    (event,) = events(lectures, "AttendanceRecorded")
    assert (event.lectureId, event.run, event.student, event.session, event.attendance) == (lecture, 0, students[0], 3, 1)
    seat = lectures.seat(lecture, 0, students[0])
    assert (seat.attendance, seat.sessionsAttended) == (1, 0b1000)
    with boa.reverts("attendance already recorded"):
        lectures.recordAttendance(lecture, 3, students[0], sender=teacher)
    with boa.reverts("no such session"):
        lectures.recordAttendance(lecture, SESSIONS, students[0], sender=teacher)
    with boa.reverts("only the teacher records attendance"):
        lectures.recordAttendance(lecture, 0, students[0], sender=stranger)
    with boa.reverts("only the teacher records attendance"):
        lectures.recordAttendance(lecture, 0, students[0], sender=students[0])
    with boa.reverts("not a student of this run"):
        lectures.recordAttendance(lecture, 0, students[1], sender=teacher)


def test_evaluation_updates_the_running_sums(lectures, lecture, teacher, students):
    for student in students[:2]:
        enroll(lectures, lecture, student)
        attend(lectures, lecture, teacher, student)
    lectures.evaluate(lecture, [0, 100, 80, 34, 77], sender=students[0])
    (event,) = events(lectures, "Evaluated")
    assert (event.lectureId, event.run, event.student, list(event.scores), event.evaluations) == (
        lecture, 0, students[0], [0, 100, 80, 34, 77], 1)
    assert lectures.runAverage(lecture, 0) == 291 // 5  # 58
    lectures.evaluate(lecture, [100, 100, 100, 100, 99], sender=students[1])
    run = lectures.run(lecture, 0)
    assert run.evaluations == 2 and list(run.scoreSums) == [100, 200, 180, 134, 176]
    assert lectures.runAverage(lecture, 0) == 790 // 10  # 79
    assert lectures.averagePoint(lecture) == 79


# §3.2: evaluateLecture had no once-per-purchaser limit (the server hid the button).
def test_a_student_evaluates_once(lectures, lecture, teacher, students):
    enroll(lectures, lecture, students[0])
    attend(lectures, lecture, teacher, students[0])
    lectures.evaluate(lecture, [100] * 5, sender=students[0])
    with boa.reverts("already evaluated"):
        lectures.evaluate(lecture, [100] * 5, sender=students[0])


# §3.2: the points were not range-checked.
def test_scores_above_one_hundred_are_refused(lectures, lecture, teacher, students):
    enroll(lectures, lecture, students[0])
    attend(lectures, lecture, teacher, students[0])
    with boa.reverts("score above 100"):
        lectures.evaluate(lecture, [100, 100, 101, 100, 100], sender=students[0])
    lectures.evaluate(lecture, [0, 0, 0, 0, 100], sender=students[0])


# §3.4: attendance was only in the server's database; the contract let any purchaser evaluate.
def test_evaluation_needs_enough_attendance(lectures, lecture, teacher, students):
    enroll(lectures, lecture, students[0])
    attend(lectures, lecture, teacher, students[0], MIN_ATTENDANCE - 1)
    with boa.reverts("not enough attendance"):
        lectures.evaluate(lecture, [100] * 5, sender=students[0])
    lectures.recordAttendance(lecture, MIN_ATTENDANCE, students[0], sender=teacher)
    lectures.evaluate(lecture, [100] * 5, sender=students[0])


# §3.2: isValidStudent scanned the students of every run and was never reset, so a student of an
# earlier run could evaluate (and so move the teacher's incentive for) a later one.
def test_only_students_of_the_current_run_evaluate(lectures, lecture, teacher, students, platform, end_time, stranger):
    enroll(lectures, lecture, students[0])
    attend(lectures, lecture, teacher, students[0])
    with boa.reverts("not a student of this run"):
        lectures.evaluate(lecture, [100] * 5, sender=stranger)
    boa.env.timestamp = end_time
    lectures.settle(lecture, sender=platform)
    lectures.rerunLecture(lecture, PRICE, 3, end_time + DURATION, sender=teacher)
    with boa.reverts("not a student of this run"):
        lectures.evaluate(lecture, [0] * 5, sender=students[0])


def test_no_average_is_zero_not_a_revert(lectures, lecture):
    # §3.2: the average divided by zero (reverted) when there was no evaluation.
    assert lectures.runAverage(lecture, 0) == 0
    assert lectures.averagePoint(lecture) == 0
    assert lectures.averagePoint(99) == 0


@pytest.mark.parametrize(
    "average,percent", [(100, 15), (99, 10), (80, 10), (79, 5), (60, 5), (59, 0), (0, 0)]
)
def test_incentive_tiers(lectures, average, percent):
    total = 10**18
    fee = total // 10
    assert lectures.settlementOf(total, average) == (fee, fee * percent // 100, total - fee + fee * percent // 100)


@pytest.mark.parametrize(
    "total,average,expected",
    [
        (105, 70, (10, 1, 96)),  # 10 * 5 = 50: half a wei rounds up
        (104, 85, (10, 1, 95)),  # 10 * 10 = 100: exactly 1
        (1_234_567, 100, (123_456, 18_518, 1_129_629)),  # 18518.4 rounds down
        (1_234_567, 70, (123_456, 6_173, 1_117_284)),  # 6172.8 rounds up
        (9, 100, (0, 0, 9)),  # the fee rounds down to nothing
        (0, 100, (0, 0, 0)),
    ],
)
def test_settlement_rounding(lectures, total, average, expected):
    assert lectures.settlementOf(total, average) == expected
    assert settled_split(total, average) == expected


def test_settlement_credits_teacher_and_platform(lectures, lecture, teacher, students, platform, end_time):
    for student in students[:3]:
        enroll(lectures, lecture, student)
        attend(lectures, lecture, teacher, student)
    for student, scores in zip(students[:3], ([100] * 5, [80] * 5, [90, 90, 90, 90, 89])):
        lectures.evaluate(lecture, scores, sender=student)
    average = (500 + 400 + 449) // 15  # 89
    total = 3 * PRICE
    with boa.reverts("the run has not ended"):
        lectures.settle(lecture, sender=platform)
    boa.env.timestamp = end_time
    lectures.settle(lecture, sender=platform)
    (event,) = events(lectures, "RunSettled")
    fee, incentive, to_teacher = settled_split(total, average)
    assert (event.lectureId, event.run, event.total, event.average, event.fee, event.incentive, event.teacherAmount) == (
        lecture, 0, total, average, fee, incentive, to_teacher)
    assert lectures.run(lecture, 0).state == SETTLED
    assert lectures.pendingWithdrawal(teacher) == to_teacher
    assert lectures.pendingWithdrawal(platform) == fee - incentive
    for who, amount in ((teacher, to_teacher), (platform, fee - incentive)):
        before = boa.env.get_balance(who)
        lectures.withdraw(sender=who)
        assert boa.env.get_balance(who) - before == amount
    assert boa.env.get_balance(lectures.address) == 0


# §3.3: payBalance was public and unguarded, and repeatable until acceptAdmin zeroed the total.
def test_only_the_platform_settles_and_only_once(lectures, lecture, teacher, students, platform, stranger, end_time):
    enroll(lectures, lecture, students[0])
    boa.env.timestamp = end_time
    for who in (stranger, teacher, students[0]):
        with boa.reverts("only the platform settles"):
            lectures.settle(lecture, sender=who)
    lectures.settle(lecture, sender=platform)
    with boa.reverts("the run is closed"):
        lectures.settle(lecture, sender=platform)
    fee, incentive, to_teacher = settled_split(PRICE, 0)
    assert lectures.pendingWithdrawal(teacher) == to_teacher
    assert lectures.pendingWithdrawal(platform) == fee


# §3.3: settlement reverted when a lecture had no evaluation (division by zero in the average).
def test_a_run_without_evaluations_settles_with_no_incentive(lectures, lecture, teacher, students, platform, end_time):
    enroll(lectures, lecture, students[0])
    boa.env.timestamp = end_time
    lectures.settle(lecture, sender=platform)
    (event,) = events(lectures, "RunSettled")
    assert (event.average, event.incentive) == (0, 0)


def test_a_closed_run_takes_no_attendance_or_evaluation(lectures, lecture, teacher, students, platform, end_time):
    enroll(lectures, lecture, students[0])
    attend(lectures, lecture, teacher, students[0])
    boa.env.timestamp = end_time
    lectures.settle(lecture, sender=platform)
    with boa.reverts("the run is closed"):
        lectures.evaluate(lecture, [100] * 5, sender=students[0])
    with boa.reverts("the run is closed"):
        lectures.recordAttendance(lecture, 3, students[0], sender=teacher)
    with boa.reverts("the run is closed"):
        lectures.purchase(lecture, value=PRICE, sender=students[1])


def test_reruns_up_to_five(lectures, lecture, teacher, students, platform, stranger, end_time):
    with boa.reverts("the current run is still open"):
        lectures.rerunLecture(lecture, PRICE, 3, end_time + 1, sender=teacher)
    now_end = end_time
    for run in range(1, 5):
        boa.env.timestamp = now_end
        lectures.settle(lecture, sender=platform)
        with boa.reverts("only the teacher reruns"):
            lectures.rerunLecture(lecture, PRICE, 3, now_end + DURATION, sender=stranger)
        now_end += DURATION
        assert lectures.rerunLecture(lecture, PRICE + run, 2, now_end, sender=teacher) == run
        (opened,) = events(lectures, "RunOpened")
        assert (opened.run, opened.price, opened.capacity) == (run, PRICE + run, 2)
        # A seat in every run: the student who bought run 0 buys again.
        enroll(lectures, lecture, students[0], PRICE + run)
        assert lectures.seat(lecture, run, students[0]).paid == PRICE + run
    assert lectures.lecture(lecture).runCount == 5
    boa.env.timestamp = now_end
    lectures.settle(lecture, sender=platform)
    with boa.reverts("five runs already"):
        lectures.rerunLecture(lecture, PRICE, 3, now_end + DURATION, sender=teacher)
    with boa.reverts("no such lecture"):
        lectures.rerunLecture(42, PRICE, 3, now_end + DURATION, sender=teacher)


def test_average_point_spans_the_runs(lectures, lecture, teacher, students, platform, end_time):
    enroll(lectures, lecture, students[0])
    attend(lectures, lecture, teacher, students[0])
    lectures.evaluate(lecture, [100] * 5, sender=students[0])
    boa.env.timestamp = end_time
    lectures.settle(lecture, sender=platform)
    lectures.rerunLecture(lecture, PRICE, 3, end_time + DURATION, sender=teacher)
    enroll(lectures, lecture, students[1])
    attend(lectures, lecture, teacher, students[1])
    lectures.evaluate(lecture, [61] * 5, sender=students[1])
    assert lectures.runAverage(lecture, 1) == 61
    assert lectures.averagePoint(lecture) == (500 + 305) // 10  # 80


# §3.2: there was no refund function at all.
def test_a_cancelled_run_refunds_its_students(lectures, lecture, teacher, students, platform, stranger):
    enroll(lectures, lecture, students[0])
    enroll(lectures, lecture, students[1])
    with boa.reverts("the run is not cancelled"):
        lectures.refund(lecture, 0, sender=students[0])
    with boa.reverts("only the teacher or the platform cancels"):
        lectures.cancelRun(lecture, sender=stranger)
    lectures.cancelRun(lecture, sender=teacher)
    (event,) = events(lectures, "RunCancelled")
    assert (event.lectureId, event.run) == (lecture, 0)
    assert lectures.run(lecture, 0).state == CANCELLED
    before = boa.env.get_balance(students[0])
    lectures.refund(lecture, 0, sender=students[0])
    (refunded,) = events(lectures, "Refunded")
    assert (refunded.student, refunded.amount) == (students[0], PRICE)
    assert boa.env.get_balance(students[0]) - before == PRICE
    with boa.reverts("already refunded"):
        lectures.refund(lecture, 0, sender=students[0])
    with boa.reverts("not a student of this run"):
        lectures.refund(lecture, 0, sender=stranger)
    with boa.reverts("the run is closed"):
        lectures.settle(lecture, sender=platform)
    with boa.reverts("the run is closed"):
        lectures.cancelRun(lecture, sender=platform)
    lectures.refund(lecture, 0, sender=students[1])
    assert boa.env.get_balance(lectures.address) == 0
    # A cancelled run may be followed by a new one.
    assert lectures.rerunLecture(lecture, PRICE, 3, boa.env.timestamp + 10, sender=teacher) == 1


def test_the_platform_may_cancel_and_no_refund_after_settlement(lectures, lecture, teacher, students, platform, end_time):
    enroll(lectures, lecture, students[0])
    boa.env.timestamp = end_time
    lectures.settle(lecture, sender=platform)
    with boa.reverts("the run is not cancelled"):
        lectures.refund(lecture, 0, sender=students[0])
    lectures.rerunLecture(lecture, PRICE, 3, end_time + DURATION, sender=teacher)
    enroll(lectures, lecture, students[0])
    lectures.cancelRun(lecture, sender=platform)
    lectures.refund(lecture, 1, sender=students[0])


def test_withdraw_refusals_and_reentrancy(lectures, lecture, teacher, make_actor, platform, end_time):
    actor = make_actor()
    actor.execute(lectures.address, lectures.purchase.prepare_calldata(lecture), PRICE)
    lectures.cancelRun(lecture, sender=teacher)
    # The refund's payment tries to take the refund again.
    actor.setHook(lectures.address, lectures.refund.prepare_calldata(lecture, 0))
    actor.execute(lectures.address, lectures.refund.prepare_calldata(lecture, 0), 0)
    assert actor.hookCalls() == 1 and actor.hookSuccesses() == 0
    assert actor.received() == PRICE
    with boa.reverts("nothing to withdraw"):
        lectures.withdraw(sender=platform)


def test_a_student_refusing_ether_keeps_the_refund_for_later(lectures, lecture, teacher, make_actor):
    actor = make_actor()
    actor.execute(lectures.address, lectures.purchase.prepare_calldata(lecture), PRICE)
    lectures.cancelRun(lecture, sender=teacher)
    actor.setRefuseEther(True)
    with boa.reverts():
        actor.execute(lectures.address, lectures.refund.prepare_calldata(lecture, 0), 0)
    assert not lectures.seat(lecture, 0, actor.address).refunded
    actor.setRefuseEther(False)
    actor.execute(lectures.address, lectures.refund.prepare_calldata(lecture, 0), 0)
    assert actor.received() == PRICE


def test_constructor(lectures_deployer, lectures, platform):
    assert lectures.platform() == platform
    with boa.reverts("empty platform"):
        lectures_deployer.deploy("0x" + "00" * 20)
