import Foundation
import HubKernel

/// The rail's tables (migration group `evm`). Final once released: a change is a new migration
/// appended to the list.
enum EVMMigrations {
    static let all: [Migration] = [
        accounts, operations, listings, reviewsAndChat, images, lectures, transactions, itemDelivery, refusedNoncesFree,
    ]

    /// Custodial accounts: one key per user and chain, sealed under the rail's data key (see
    /// ``CustodialKeys``); `sealed_key` opens only for this chain and address.
    static let accounts = Migration("001_accounts") { dialect in
        dialect.ddl(
            """
            CREATE TABLE evm_accounts (
                chain TEXT NOT NULL,
                user_id TEXT NOT NULL,
                address TEXT NOT NULL,
                sealed_key {bytes} NOT NULL,
                created_at {bigint} NOT NULL,
                PRIMARY KEY (chain, user_id)
            );
            CREATE UNIQUE INDEX evm_accounts_address ON evm_accounts (chain, address);
            """
        )
    }

    /// The transactions the rail sends (operations), the contracts it deployed and the items
    /// minted through it. An operation is written before its transaction is sent (with the signed
    /// bytes), so a crash between the two sends it on restart rather than losing it; one nonce per
    /// sender and chain, held by a unique index.
    static let operations = Migration("002_operations_contracts_items") { dialect in
        dialect.ddl(
            """
            CREATE TABLE evm_operations (
                id TEXT PRIMARY KEY,
                chain TEXT NOT NULL,
                user_id TEXT,
                kind TEXT NOT NULL,
                subject TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('pending', 'confirmed', 'failed')),
                from_address TEXT NOT NULL,
                nonce {bigint} NOT NULL,
                tx_hash TEXT NOT NULL,
                raw {bytes} NOT NULL,
                details TEXT NOT NULL,
                result TEXT,
                error TEXT,
                block_number {bigint},
                created_at {bigint} NOT NULL,
                updated_at {bigint} NOT NULL
            );
            CREATE UNIQUE INDEX evm_operations_nonce ON evm_operations (chain, from_address, nonce);
            CREATE INDEX evm_operations_state ON evm_operations (state, created_at);
            CREATE INDEX evm_operations_user ON evm_operations (user_id, created_at);
            CREATE TABLE evm_contracts (
                chain TEXT NOT NULL,
                name TEXT NOT NULL,
                address TEXT NOT NULL,
                operation_id TEXT NOT NULL,
                deployed_at {bigint} NOT NULL,
                PRIMARY KEY (chain, name)
            );
            CREATE TABLE evm_items (
                chain TEXT NOT NULL,
                token_id {bigint} NOT NULL,
                owner TEXT NOT NULL,
                artist TEXT NOT NULL,
                minted_by TEXT NOT NULL,
                title TEXT NOT NULL,
                description TEXT NOT NULL,
                category TEXT NOT NULL,
                uri TEXT NOT NULL,
                operation_id TEXT NOT NULL,
                created_at {bigint} NOT NULL,
                PRIMARY KEY (chain, token_id)
            );
            CREATE INDEX evm_items_category ON evm_items (category, created_at);
            CREATE INDEX evm_items_owner ON evm_items (owner, created_at);
            """
        )
    }

    /// Listings as the marketplace contract last said (read back after each confirmed operation
    /// on them): the chain is the truth, this is its index for lists and reviews. Amounts are
    /// decimal text of the chain's smallest unit (up to 2^256 − 1).
    static let listings = Migration("003_listings") { dialect in
        dialect.ddl(
            """
            CREATE TABLE evm_listings (
                chain TEXT NOT NULL,
                listing_id {bigint} NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('escrow', 'auction', 'sale')),
                state TEXT NOT NULL,
                seller TEXT NOT NULL,
                buyer TEXT,
                token_id {bigint} NOT NULL,
                price TEXT NOT NULL,
                highest_bid TEXT NOT NULL,
                deadline {bigint} NOT NULL,
                created_at {bigint} NOT NULL,
                updated_at {bigint} NOT NULL,
                PRIMARY KEY (chain, listing_id)
            );
            CREATE INDEX evm_listings_state ON evm_listings (state, updated_at);
            CREATE INDEX evm_listings_token ON evm_listings (chain, token_id);
            """
        )
    }

    /// Reviews of a completed sale's parties (one per party per sale) and chat on a listing
    /// between its seller and each prospective buyer (a thread per buyer).
    static let reviewsAndChat = Migration("004_reviews_chat") { dialect in
        let serial =
            switch dialect {
            case .sqlite: "INTEGER PRIMARY KEY"
            case .postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            }
        let template = """
            CREATE TABLE evm_reviews (
                chain TEXT NOT NULL,
                listing_id {bigint} NOT NULL,
                reviewer_id TEXT NOT NULL,
                reviewer_address TEXT NOT NULL,
                reviewee_address TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('buyer', 'seller')),
                rating {bigint} NOT NULL CHECK (rating BETWEEN 1 AND 5),
                text TEXT NOT NULL,
                created_at {bigint} NOT NULL,
                PRIMARY KEY (chain, listing_id, reviewer_address)
            );
            CREATE INDEX evm_reviews_reviewee ON evm_reviews (reviewee_address, created_at);
            CREATE TABLE evm_messages (
                seq {serial},
                chain TEXT NOT NULL,
                listing_id {bigint} NOT NULL,
                buyer_id TEXT NOT NULL,
                sender_id TEXT NOT NULL,
                text TEXT NOT NULL,
                created_at {bigint} NOT NULL,
                read_at {bigint}
            );
            CREATE INDEX evm_messages_thread ON evm_messages (chain, listing_id, buyer_id, seq);
            """
        return dialect.ddl(template.replacingOccurrences(of: "{serial}", with: serial))
    }

    /// Images, kept under the SHA-256 of their bytes (``ImageStore``), and the ones an item shows
    /// (a JSON array of ids, `[]` for the items minted before) or a chat message carries.
    static let images = Migration("005_images") { dialect in
        dialect.ddl(
            """
            CREATE TABLE evm_images (
                sha256 TEXT PRIMARY KEY,
                content_type TEXT NOT NULL,
                size {bigint} NOT NULL,
                bytes {bytes} NOT NULL,
                uploaded_by TEXT NOT NULL,
                created_at {bigint} NOT NULL
            );
            ALTER TABLE evm_items ADD COLUMN images TEXT NOT NULL DEFAULT '[]';
            ALTER TABLE evm_messages ADD COLUMN image TEXT;
            """
        )
    }

    /// Paid courses: each lecture with the off-chain details its teacher gave, its runs and their
    /// seats as the `Lectures` contract last said (read back after each confirmed operation on
    /// them). Amounts are decimal text of the chain's smallest unit; a seat's written review is
    /// kept here, its scores on chain.
    static let lectures = Migration("006_lectures") { dialect in
        dialect.ddl(
            """
            CREATE TABLE evm_lectures (
                chain TEXT NOT NULL,
                lecture_id {bigint} NOT NULL,
                teacher TEXT NOT NULL,
                teacher_id TEXT NOT NULL,
                title TEXT NOT NULL,
                kind TEXT NOT NULL,
                target TEXT NOT NULL,
                place TEXT NOT NULL,
                period TEXT NOT NULL,
                curriculum TEXT NOT NULL,
                sessions {bigint} NOT NULL,
                min_attendance {bigint} NOT NULL,
                run_count {bigint} NOT NULL,
                created_at {bigint} NOT NULL,
                updated_at {bigint} NOT NULL,
                PRIMARY KEY (chain, lecture_id)
            );
            CREATE INDEX evm_lectures_teacher ON evm_lectures (teacher_id, updated_at);
            CREATE INDEX evm_lectures_updated ON evm_lectures (updated_at);
            CREATE TABLE evm_lecture_runs (
                chain TEXT NOT NULL,
                lecture_id {bigint} NOT NULL,
                run {bigint} NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('open', 'settled', 'cancelled')),
                price TEXT NOT NULL,
                capacity {bigint} NOT NULL,
                sold {bigint} NOT NULL,
                total TEXT NOT NULL,
                end_time {bigint} NOT NULL,
                evaluations {bigint} NOT NULL,
                score_sum {bigint} NOT NULL,
                average {bigint} NOT NULL,
                fee TEXT,
                incentive TEXT,
                teacher_amount TEXT,
                updated_at {bigint} NOT NULL,
                PRIMARY KEY (chain, lecture_id, run)
            );
            CREATE TABLE evm_lecture_seats (
                chain TEXT NOT NULL,
                lecture_id {bigint} NOT NULL,
                run {bigint} NOT NULL,
                student TEXT NOT NULL,
                user_id TEXT,
                paid TEXT NOT NULL,
                attendance {bigint} NOT NULL,
                evaluated {bigint} NOT NULL,
                refunded {bigint} NOT NULL,
                review TEXT,
                updated_at {bigint} NOT NULL,
                PRIMARY KEY (chain, lecture_id, run, student)
            );
            CREATE INDEX evm_lecture_seats_user ON evm_lecture_seats (user_id);
            """
        )
    }

    /// The transactions an operation replaced (same nonce, higher gas price) while it was stuck:
    /// any of them may still be the one a block includes, so the tracker looks for all of them.
    /// And the transactions prepared for users' own wallets, until submitted or expired
    /// (``PreparedTransaction``): what the operation will record, and the exact call to sign.
    static let transactions = Migration("007_transactions") { dialect in
        dialect.ddl(
            """
            CREATE TABLE evm_transaction_attempts (
                operation_id TEXT NOT NULL,
                tx_hash TEXT NOT NULL,
                raw {bytes} NOT NULL,
                gas_price TEXT NOT NULL,
                replaced_at {bigint} NOT NULL,
                PRIMARY KEY (operation_id, tx_hash)
            );
            CREATE TABLE evm_prepared (
                id TEXT PRIMARY KEY,
                chain TEXT NOT NULL,
                user_id TEXT,
                record TEXT NOT NULL,
                from_address TEXT NOT NULL,
                to_address TEXT,
                value TEXT NOT NULL,
                data {bytes} NOT NULL,
                nonce {bigint} NOT NULL,
                gas_limit {bigint} NOT NULL,
                gas_price TEXT NOT NULL,
                expires_at {bigint} NOT NULL,
                operation_id TEXT,
                created_at {bigint} NOT NULL
            );
            CREATE INDEX evm_prepared_expiry ON evm_prepared (expires_at);
            """
        )
    }

    /// How an item reaches its buyer (``Item/Delivery``), when its minter said.
    static let itemDelivery = Migration("008_item_delivery") { dialect in
        dialect.ddl("ALTER TABLE evm_items ADD COLUMN delivery TEXT;")
    }

    /// A transaction the node refused (`error` `refused: …`) never used its nonce, and the next
    /// send from that account takes it again (``TransactionSender``). The unique index covered
    /// refused operations too, so that send collided with the refused row on every attempt and
    /// the account could not send again. Only operations that hold their nonce are unique now.
    static let refusedNoncesFree = Migration("009_refused_nonces_free") { dialect in
        dialect.ddl(
            """
            DROP INDEX evm_operations_nonce;
            CREATE UNIQUE INDEX evm_operations_nonce ON evm_operations (chain, from_address, nonce)
                WHERE error IS NULL OR error NOT LIKE 'refused:%';
            """
        )
    }
}
