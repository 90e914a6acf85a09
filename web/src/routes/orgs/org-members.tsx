import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { inviteBody } from '../../../../src/routes/orgs/orgs-schemas.js';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { OrgInvitation, OrgMember, OrgRole, Organization } from '../../api/types';
import { ConfirmAction } from '../../components/confirm-action';
import { InlineSelect, SelectField, TextField } from '../../components/field';
import { Empty, ErrorAlert, Loading, Notice } from '../../components/status';
import { dateTime } from '../../lib/format';
import { fieldErrors } from '../../lib/validation';
import { canManage } from './org-settings-layout';

const route = getRouteApi('/signed-in/orgs/$orgId/settings/members');

const ROLES: OrgRole[] = ['member', 'admin', 'owner'];

/** Members with their roles, invitations by email; controls for admins and owners only. */
export function OrgMembersPage() {
  const { orgId } = route.useParams();
  const org = useQuery(queries.org(orgId));
  const members = useQuery(queries.orgMembers(orgId));
  const session = useQuery(queries.session());
  const manage = canManage(org.data);

  return (
    <div className="stack-lg">
      <section className="stack" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        {members.isPending ? <Loading /> : null}
        <ErrorAlert error={members.error} />
        <ul className="provider-list">
          {members.data?.map((member) => (
            <MemberRow key={member.userId} org={org.data} member={member} me={session.data?.userId} manage={manage} />
          ))}
        </ul>
      </section>
      {manage && org.data ? (
        <>
          <InviteForm org={org.data} />
          <PendingInvitations orgId={orgId} />
        </>
      ) : null}
    </div>
  );
}

function MemberRow({ org, member, me, manage }: { org: Organization | undefined; member: OrgMember; me: string | undefined; manage: boolean }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const orgId = org?.id ?? '';
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['orgs', orgId] });
  const changeRole = useMutation({ mutationFn: (role: OrgRole) => api('PATCH', `/orgs/${orgId}/members/${member.userId}`, { role }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => api('DELETE', `/orgs/${orgId}/members/${member.userId}`),
    onSuccess: async () => {
      if (member.userId !== me) return refresh();
      // Left the organization: its pages are no longer ours.
      queryClient.removeQueries({ queryKey: ['orgs'] });
      await navigate({ to: '/', search: { org: undefined } });
    },
  });
  const isMe = member.userId === me;
  // Admins manage members and admins; owners everyone (decisions.md §15).
  const mayChange = manage && (org?.role === 'owner' || member.role !== 'owner');

  return (
    <li className="card provider-row" aria-label={member.name}>
      <div className="provider-main">
        <p className="item-title">
          {member.name} {isMe ? <span className="badge">you</span> : null}
        </p>
        <p className="meta">
          {member.email} · joined {dateTime(member.joinedAt)}
        </p>
        <ErrorAlert error={changeRole.error ?? remove.error} />
      </div>
      <div className="row">
        {mayChange ? (
          <InlineSelect label={`Role of ${member.name}`} value={member.role} onChange={(event) => changeRole.mutate(event.target.value as OrgRole)} disabled={changeRole.isPending}>
            {ROLES.filter((role) => role !== 'owner' || org?.role === 'owner').map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </InlineSelect>
        ) : (
          <span className="badge">{member.role}</span>
        )}
        {mayChange || isMe ? (
          <ConfirmAction label={isMe ? 'Leave' : 'Remove'} question={isMe ? 'Leave this organization?' : `Remove ${member.name}?`} onConfirm={() => remove.mutate()} pending={remove.isPending} />
        ) : null}
      </div>
    </li>
  );
}

function InviteForm({ org }: { org: Organization }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const invite = useMutation({
    mutationFn: (input: unknown) => api<OrgInvitation>('POST', `/orgs/${org.id}/invitations`, input),
    onSuccess: async () => {
      setEmail('');
      await queryClient.invalidateQueries({ queryKey: queries.orgInvitations(org.id).queryKey });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = inviteBody.safeParse({ email, role });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    invite.mutate(parsed.data);
  };

  return (
    <form className="card stack" onSubmit={submit} noValidate aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <ErrorAlert error={invite.error} />
      <div className="grid-2">
        <TextField label="Email" type="email" autoComplete="off" value={email} onChange={(event) => setEmail(event.target.value)} error={errors.email} />
        <SelectField label="Role" value={role} onChange={(event) => setRole(event.target.value as OrgRole)}>
          {ROLES.filter((item) => item !== 'owner' || org.role === 'owner').map((item) => (
            <option key={item} value={item}>
              {item}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="row">
        <button type="submit" className="button button-primary" disabled={invite.isPending}>
          Invite
        </button>
        {invite.isSuccess ? <Notice>Invitation sent to {invite.data.email}.</Notice> : null}
      </div>
    </form>
  );
}

function PendingInvitations({ orgId }: { orgId: string }) {
  const invitations = useQuery(queries.orgInvitations(orgId));
  return (
    <section className="stack" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      {invitations.isPending ? <Loading /> : null}
      <ErrorAlert error={invitations.error} />
      {invitations.data?.length === 0 ? <Empty title="No pending invitations" /> : null}
      <ul className="provider-list">
        {invitations.data?.map((invitation) => (
          <InvitationRow key={invitation.id} orgId={orgId} invitation={invitation} />
        ))}
      </ul>
    </section>
  );
}

function InvitationRow({ orgId, invitation }: { orgId: string; invitation: OrgInvitation }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => api('DELETE', `/orgs/${orgId}/invitations/${invitation.id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queries.orgInvitations(orgId).queryKey }),
  });
  return (
    <li className="card provider-row" aria-label={invitation.email}>
      <div className="provider-main">
        <p className="item-title">{invitation.email}</p>
        <p className="meta">
          {invitation.role} · expires {dateTime(invitation.expiresAt)}
        </p>
        <ErrorAlert error={revoke.error} />
      </div>
      <button type="button" className="button button-small" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
        Revoke
      </button>
    </li>
  );
}
