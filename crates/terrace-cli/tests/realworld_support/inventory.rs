//! What a moto server holds, listed through boto3 service by service:
//! one line per object (`service kind name [region]`), sorted. moto's
//! own `/moto-api/data.json` is no use here: it keeps every object ever
//! made, deleted ones included.
//!
//! A listing call moto does not implement is skipped (its line says so
//! once, the same on every listing, so it never makes two listings
//! differ).

use crate::engine_support::Moto;

const SCRIPT: &str = r#"
import os, sys
# A call moto does not implement answers 500: no retries (and their
# backoff) for those.
os.environ['AWS_MAX_ATTEMPTS'] = '1'
out = []
def add(line):
    out.append(line)
def attempt(what, fn):
    try:
        fn()
    except Exception as e:
        add("unlisted " + what + ": " + type(e).__name__)
def pages(c, op, key, **kw):
    items = []
    try:
        paginator = c.get_paginator(op)
        for page in paginator.paginate(**kw):
            items.extend(page.get(key, []))
    except Exception as e:
        if 'OperationNotPageable' not in type(e).__name__ and 'not paginat' not in str(e).lower():
            raise
        items = getattr(c, op)(**kw).get(key, [])
    return items

def global_services():
    iam = client('iam', 'us-east-1')
    def roles():
        for r in pages(iam, 'list_roles', 'Roles'):
            n = r['RoleName']
            add("iam role " + n)
            for p in pages(iam, 'list_attached_role_policies', 'AttachedPolicies', RoleName=n):
                add("iam role-policy-attachment " + n + " " + p['PolicyArn'])
            for p in pages(iam, 'list_role_policies', 'PolicyNames', RoleName=n):
                add("iam role-inline-policy " + n + " " + p)
    attempt("iam roles", roles)
    def users():
        for u in pages(iam, 'list_users', 'Users'):
            n = u['UserName']
            add("iam user " + n)
            for p in pages(iam, 'list_attached_user_policies', 'AttachedPolicies', UserName=n):
                add("iam user-policy-attachment " + n + " " + p['PolicyArn'])
            for p in pages(iam, 'list_user_policies', 'PolicyNames', UserName=n):
                add("iam user-inline-policy " + n + " " + p)
            for k in iam.list_access_keys(UserName=n).get('AccessKeyMetadata', []):
                add("iam access-key " + n)
            try:
                iam.get_login_profile(UserName=n)
                add("iam login-profile " + n)
            except Exception:
                pass
            for g in iam.list_groups_for_user(UserName=n).get('Groups', []):
                add("iam group-membership " + g['GroupName'] + " " + n)
    attempt("iam users", users)
    def groups():
        for g in pages(iam, 'list_groups', 'Groups'):
            n = g['GroupName']
            add("iam group " + n)
            for p in pages(iam, 'list_attached_group_policies', 'AttachedPolicies', GroupName=n):
                add("iam group-policy-attachment " + n + " " + p['PolicyArn'])
            for p in pages(iam, 'list_group_policies', 'PolicyNames', GroupName=n):
                add("iam group-inline-policy " + n + " " + p)
    attempt("iam groups", groups)
    attempt("iam policies", lambda: [add("iam policy " + p['Arn']) for p in pages(iam, 'list_policies', 'Policies', Scope='Local')])
    attempt("iam instance profiles", lambda: [add("iam instance-profile " + p['InstanceProfileName']) for p in pages(iam, 'list_instance_profiles', 'InstanceProfiles')])
    attempt("iam saml providers", lambda: [add("iam saml-provider " + p['Arn']) for p in iam.list_saml_providers().get('SAMLProviderList', [])])
    attempt("iam oidc providers", lambda: [add("iam oidc-provider " + p['Arn']) for p in iam.list_open_id_connect_providers().get('OpenIDConnectProviderList', [])])
    attempt("iam account aliases", lambda: [add("iam account-alias " + a) for a in iam.list_account_aliases().get('AccountAliases', [])])
    def password_policy():
        try:
            iam.get_account_password_policy()
            add("iam account-password-policy")
        except iam.exceptions.NoSuchEntityException:
            pass
    attempt("iam password policy", password_policy)
    r53 = client('route53', 'us-east-1')
    attempt("route53 zones", lambda: [add("route53 zone " + z['Name']) for z in pages(r53, 'list_hosted_zones', 'HostedZones')])

def regional(region):
    sfx = " [" + region + "]"
    kms = client('kms', region)
    def keys():
        # A key AWS manages for a service (made by moto on the service's
        # first use, e.g. DynamoDB's encryption at rest) is in no state:
        # it is named by its `alias/aws/...` alias, not its id. moto
        # reports such keys as customer managed, so the alias tells.
        managed = {}
        for a in pages(kms, 'list_aliases', 'Aliases'):
            if a['AliasName'].startswith('alias/aws/') and a.get('TargetKeyId'):
                managed[a['TargetKeyId']] = a['AliasName']
        for k in pages(kms, 'list_keys', 'Keys'):
            m = kms.describe_key(KeyId=k['KeyId'])['KeyMetadata']
            if m.get('KeyState') == 'PendingDeletion':
                continue
            if k['KeyId'] in managed:
                add("kms aws-managed key " + managed[k['KeyId']] + sfx)
            else:
                add("kms key " + k['KeyId'] + sfx)
    attempt("kms keys", keys)
    attempt("kms aliases", lambda: [add("kms alias " + a['AliasName'] + sfx) for a in pages(kms, 'list_aliases', 'Aliases') if not a['AliasName'].startswith('alias/aws/')])
    ecr = client('ecr', region)
    attempt("ecr repositories", lambda: [add("ecr repository " + r['repositoryName'] + sfx) for r in pages(ecr, 'describe_repositories', 'repositories')])
    attempt("ecr pull-through rules", lambda: [add("ecr pull-through-cache-rule " + r['ecrRepositoryPrefix'] + sfx) for r in ecr.describe_pull_through_cache_rules().get('pullThroughCacheRules', [])])
    def registry_policy():
        try:
            ecr.get_registry_policy()
            add("ecr registry-policy" + sfx)
        except ecr.exceptions.RegistryPolicyNotFoundException:
            pass
    attempt("ecr registry policy", registry_policy)
    def replication():
        rules = ecr.describe_registry().get('replicationConfiguration', {}).get('rules', [])
        if rules:
            add("ecr replication-configuration" + sfx)
    attempt("ecr replication", replication)
    ssm = client('ssm', region)
    attempt("ssm parameters", lambda: [add("ssm parameter " + p['Name'] + sfx) for p in pages(ssm, 'describe_parameters', 'Parameters')])
    sm = client('secretsmanager', region)
    attempt("secrets", lambda: [add("secretsmanager secret " + s['Name'] + sfx) for s in pages(sm, 'list_secrets', 'SecretList')])
    ev = client('events', region)
    def events():
        for b in ev.list_event_buses().get('EventBuses', []):
            if b['Name'] != 'default':
                add("events bus " + b['Name'] + sfx)
            for r in ev.list_rules(EventBusName=b['Name']).get('Rules', []):
                add("events rule " + b['Name'] + "/" + r['Name'] + sfx)
                for t in ev.list_targets_by_rule(Rule=r['Name'], EventBusName=b['Name']).get('Targets', []):
                    add("events target " + b['Name'] + "/" + r['Name'] + "/" + t['Id'] + sfx)
    attempt("event buses", events)
    attempt("event archives", lambda: [add("events archive " + a['ArchiveName'] + sfx) for a in ev.list_archives().get('Archives', [])])
    attempt("event connections", lambda: [add("events connection " + a['Name'] + sfx) for a in ev.list_connections().get('Connections', [])])
    attempt("event api destinations", lambda: [add("events api-destination " + a['Name'] + sfx) for a in ev.list_api_destinations().get('ApiDestinations', [])])
    sch = client('scheduler', region)
    attempt("schedules", lambda: [add("scheduler schedule " + s.get('GroupName', '') + "/" + s['Name'] + sfx) for s in sch.list_schedules().get('Schedules', [])])
    attempt("schedule groups", lambda: [add("scheduler group " + g['Name'] + sfx) for g in sch.list_schedule_groups().get('ScheduleGroups', []) if g['Name'] != 'default'])
    sns = client('sns', region)
    attempt("sns topics", lambda: [add("sns topic " + t['TopicArn'] + sfx) for t in pages(sns, 'list_topics', 'Topics')])
    attempt("sns subscriptions", lambda: [add("sns subscription " + s['TopicArn'] + " " + s['Protocol'] + " " + s['Endpoint'] + sfx) for s in pages(sns, 'list_subscriptions', 'Subscriptions')])
    sqs = client('sqs', region)
    attempt("sqs queues", lambda: [add("sqs queue " + q + sfx) for q in sqs.list_queues().get('QueueUrls', [])])
    ddb = client('dynamodb', region)
    attempt("dynamodb tables", lambda: [add("dynamodb table " + t + sfx) for t in pages(ddb, 'list_tables', 'TableNames')])
    aas = client('application-autoscaling', region)
    attempt("autoscaling targets", lambda: [add("application-autoscaling target " + t['ResourceId'] + " " + t['ScalableDimension'] + sfx) for t in aas.describe_scalable_targets(ServiceNamespace='dynamodb').get('ScalableTargets', [])])
    attempt("autoscaling policies", lambda: [add("application-autoscaling policy " + p['PolicyName'] + sfx) for p in aas.describe_scaling_policies(ServiceNamespace='dynamodb').get('ScalingPolicies', [])])
    cw = client('cloudwatch', region)
    def alarms():
        found = cw.describe_alarms(AlarmTypes=['MetricAlarm', 'CompositeAlarm'])
        for a in found.get('MetricAlarms', []):
            add("cloudwatch metric-alarm " + a['AlarmName'] + sfx)
        for a in found.get('CompositeAlarms', []):
            add("cloudwatch composite-alarm " + a['AlarmName'] + sfx)
    attempt("alarms", alarms)
    attempt("metric streams", lambda: [add("cloudwatch metric-stream " + s['Name'] + sfx) for s in cw.list_metric_streams().get('Entries', [])])
    logs = client('logs', region)
    def groups():
        for g in pages(logs, 'describe_log_groups', 'logGroups'):
            n = g['logGroupName']
            add("logs group " + n + sfx)
            for s in logs.describe_log_streams(logGroupName=n).get('logStreams', []):
                add("logs stream " + n + " " + s['logStreamName'] + sfx)
            for f in logs.describe_subscription_filters(logGroupName=n).get('subscriptionFilters', []):
                add("logs subscription-filter " + n + " " + f['filterName'] + sfx)
    attempt("log groups", groups)
    attempt("metric filters", lambda: [add("logs metric-filter " + f['filterName'] + sfx) for f in logs.describe_metric_filters().get('metricFilters', [])])
    attempt("query definitions", lambda: [add("logs query-definition " + q['name'] + sfx) for q in logs.describe_query_definitions().get('queryDefinitions', [])])
    attempt("log account policies", lambda: [add("logs account-policy " + p['policyName'] + sfx) for p in logs.describe_account_policies(policyType='DATA_PROTECTION_POLICY').get('accountPolicies', [])])
    lam = client('lambda', region)
    attempt("lambda functions", lambda: [add("lambda function " + f['FunctionName'] + sfx) for f in pages(lam, 'list_functions', 'Functions')])

global_services()
for region in REGIONS:
    regional(region)
print(json.dumps(sorted(out)))
"#;

/// The objects moto holds in `regions` (and in the global services).
pub fn list(moto: &Moto, regions: &[String]) -> Vec<String> {
    let script = format!(
        "REGIONS = {}\n{SCRIPT}",
        serde_json::to_string(regions).unwrap_or_else(|_| "[]".into())
    );
    let listed = moto.query(&script);
    listed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The lines of `now` not in `baseline` (a multiset difference).
pub fn added(baseline: &[String], now: &[String]) -> Vec<String> {
    let mut left: Vec<&String> = baseline.iter().collect();
    let mut out = Vec::new();
    for line in now {
        if let Some(pos) = left.iter().position(|b| *b == line) {
            left.remove(pos);
        } else {
            out.push(line.clone());
        }
    }
    out
}
