import { apiRoot } from './root'
import { clubDetail, clubHistory, clubList, clubResubmit } from './clubs'
import { importList } from './imports'
import { clubLogo, logoFile } from './logos'
import { interestedDetail, interestedList } from './interested'
import { memberDetail, memberList, officerList, subscriberList } from './members'
import { favoriteDetail, favoriteList, subscriptionDetail, subscriptionList } from './saved-clubs'
import { myRequests, requestAccept, requestDetail, requestList } from './join-requests'
import { inviteDetail, inviteList } from './invites'
import { tagDetail, tagList } from './tags'
import { userDetail, userList, userMe, userSessions, userToken } from './users'
import { changeList, changeStream } from './changes'
import { calendarUrl, clubCalendar, directoryCalendar, userCalendar } from './calendars'
import { clubQrCode } from './qr-codes'
import { clubFitting } from './fitting'
import { webhookDeliveries, webhookDetail, webhookList } from './webhooks'
import { closeRound, clubRegistration, currentRound, currentRoundClubs, roundList } from './registration-rounds'

/** Every API endpoint, each declared once. */
export const ENDPOINTS = [
  apiRoot,
  clubList,
  clubFitting,
  clubDetail,
  clubHistory,
  clubResubmit,
  clubRegistration,
  changeList,
  changeStream,
  clubCalendar,
  directoryCalendar,
  userCalendar,
  clubQrCode,
  clubLogo,
  logoFile,
  importList,
  memberList,
  memberDetail,
  officerList,
  subscriberList,
  interestedList,
  interestedDetail,
  requestList,
  requestDetail,
  requestAccept,
  inviteList,
  inviteDetail,
  favoriteList,
  favoriteDetail,
  subscriptionList,
  subscriptionDetail,
  tagList,
  tagDetail,
  userList,
  userMe,
  calendarUrl,
  myRequests,
  userDetail,
  userToken,
  userSessions,
  webhookList,
  webhookDetail,
  webhookDeliveries,
  roundList,
  currentRound,
  currentRoundClubs,
  closeRound,
]
