//! What the suite knows before it runs: steps where terraform itself
//! fails or hangs because of moto. A listed failure that terraform no
//! longer shows fails the suite, so that this list and docs/CONFORMANCE.md
//! are kept true.

use super::Step;

pub enum Kind {
    /// terraform fails here because moto misbehaves, and terrace fails
    /// the same way.
    Moto,
    /// terraform hangs here because of moto: this step and the later ones
    /// are not run for either tool.
    MotoHang,
}

pub struct Entry {
    pub case: &'static str,
    pub step: Step,
    pub kind: Kind,
    pub label: &'static str,
    pub reason: &'static str,
}

/// moto's failures that hang terraform's apply for longer than the
/// suite's 10-minute bound on a command (the cases run up to the plan),
/// then steps where terraform fails because of moto (terrace must fail
/// the same way; the later steps are not run).
pub const ENTRIES: &[Entry] = &[
    Entry {
        case: "cloudwatch/log-group-with-data-protection-policy",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "moto does not implement CloudWatch Logs' PutDataProtectionPolicy (it answers 500); terraform's apply retries it and is still running after 10 minutes",
    },
    Entry {
        case: "cloudwatch/query-definition",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "moto does not implement CloudWatch Logs' PutQueryDefinition (it answers 500); terraform's apply retries it and is still running after 10 minutes",
    },
    Entry {
        case: "dynamodb-table/autoscaling",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "moto does not implement Application Auto Scaling's ListTagsForResource (it answers 500); terraform's apply of `aws_appautoscaling_target` retries it and is still running after 10 minutes",
    },
    Entry {
        case: "dynamodb-table/global-tables",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "moto accepts UpdateTable's ReplicaUpdates but records no replica; terraform's apply waits for the eu-west-2 replica of `aws_dynamodb_table` and is still creating after 10 minutes",
    },
    Entry {
        case: "ecr/complete",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "moto does not implement ECR's CreatePullThroughCacheRule (it answers 500); terraform's apply retries it and is still running after 10 minutes",
    },
    Entry {
        case: "ecr/repository-template",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "moto does not implement ECR's CreatePullThroughCacheRule and CreateRepositoryCreationTemplate (they answer 500); terraform's apply retries them and is still running after 10 minutes",
    },
    Entry {
        case: "iam/iam-user",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "the example's login profile encrypts with `keybase:test`, which needs keybase.io (no network here), so both tools' applies fail alike; destroying what they made then hangs: moto does not implement IAM's ListServiceSpecificCredentials (it answers 500) and terraform's destroy of the `force_destroy` user retries it past 10 minutes",
    },
    Entry {
        case: "iam/iam-read-only-policy",
        step: Step::Apply,
        kind: Kind::MotoHang,
        label: "moto",
        reason: "terraform's apply of `aws_ssoadmin_permission_set` is still creating after 10 minutes: moto never completes the permission set's provisioning",
    },
    Entry {
        case: "eventbridge/with-permissions",
        step: Step::Plan,
        kind: Kind::Moto,
        label: "moto",
        reason: "moto's account belongs to no AWS Organizations organization: `data.aws_organizations_organization` fails terraform's plan (\"reading Organizations Organization: couldn't find resource\")",
    },
    Entry {
        case: "ssm-parameter/complete",
        step: Step::Apply,
        kind: Kind::Moto,
        label: "moto",
        reason: "moto refuses the `aws:ssm:integration` data type of an SSM parameter (ValidationException), which AWS accepts: terraform's apply fails creating it",
    },
];
